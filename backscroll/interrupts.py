"""Stopping work midway, where it is safe: Ctrl-C and a cancelled call.

Ctrl-C while native code runs: held while code runs that a signal would leave in an error of its own
(onnxruntime's session set-up), felt once that code returns, not reported as a broken install; and felt at once
by a long SQLite statement (``PRAGMA integrity_check`` at millions of records), which Python cannot stop itself.

A call another thread cancels (the MCP server's, when its client sends ``notifications/cancelled``) is felt in the
same places: the work runs ``cancellable``, and stops with ``Cancelled`` at its next safe point (``check``: a sync
between files, a search between its stages) or at once inside a long statement (``stoppable``). ``Cancelled``
is a ``BaseException``, as ``KeyboardInterrupt`` is, so it unwinds as Ctrl-C does: no handler of one file's failure
or of the store's takes it for theirs, a sync's committed groups of files stay and the rest is rolled back (the
next run reads it), and nothing is left half-written.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import threading
from collections.abc import Iterator


class Cancelled(BaseException):
    """The call this thread runs was cancelled by its caller; raised at its next safe point."""


_call = threading.local()  # .event: the cancel of the call this thread runs (``cancellable``), or None
_guarded = threading.local()  # .conns: the connections this thread's ``interruptible`` guards


@contextlib.contextmanager
def cancellable(event: threading.Event | None) -> Iterator[None]:
    """The body is a call that stops once another thread sets ``event`` (None: one that cannot be cancelled): at
    its next ``check()``, or at once in a statement run ``stoppable``."""
    before = getattr(_call, "event", None)
    _call.event = event
    try:
        yield
    finally:
        _call.event = before


def cancelled() -> bool:
    """Whether the call this thread runs was cancelled."""
    event = getattr(_call, "event", None)
    return event is not None and event.is_set()


def check() -> None:
    """A safe point: raise ``Cancelled`` when the call this thread runs was cancelled."""
    if cancelled():
        raise Cancelled


@contextlib.contextmanager
def stoppable(conn: sqlite3.Connection) -> Iterator[None]:
    """In a call that can be cancelled, its cancel ends the statement ``conn`` runs in the body at once
    (``interruptible``); elsewhere nothing changes (Ctrl-C is felt where Python feels it)."""
    if getattr(_call, "event", None) is None:
        yield
        return
    with interruptible(conn):
        yield


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[list[int]]:
    """Hold SIGINT while the body runs (in the main thread, where Python's own handler is in place), then raise
    ``KeyboardInterrupt`` if it came; the list it gives holds the signal once it came, for an error handler to see."""
    pressed: list[int] = []
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield pressed
        return
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: pressed.append(signum))
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while the body runs (a few steps that must not be parted), then deliver
    what came, to the handlers they had (in the main thread; elsewhere the body just runs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    held = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    held = {s: h for s, h in held.items() if h not in (signal.SIG_IGN, None)}
    for s in held:
        signal.signal(s, lambda signum, _frame: came.append(signum))
    try:
        yield
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)
        for signum in dict.fromkeys(came):
            signal.raise_signal(signum)


@contextlib.contextmanager
def interruptible(conn: sqlite3.Connection) -> Iterator[None]:
    """Ctrl-C, or the cancel of the call this thread runs, ends the statement ``conn`` runs in the body at once;
    Ctrl-C is raised as ``KeyboardInterrupt`` when the body ends, the cancel as ``Cancelled``, neither as SQLite's
    "interrupted". (SQLite calls a progress handler every so many steps: Python's signal handler runs there, and
    the statement is told to stop.) Inside another for the same connection, the outer one's guard stays."""
    guarded = _guarded.__dict__.setdefault("conns", {})  # id(conn): what its outermost guard was pressed with
    if id(conn) in guarded:  # (an inner one ending would take the outer one's handler away)
        try:
            yield
        except sqlite3.OperationalError as exc:
            _ended(exc, guarded[id(conn)], inner=True)
        return
    with ctrl_c_held() as pressed:
        guarded[id(conn)] = pressed
        conn.set_progress_handler(lambda: 1 if pressed or cancelled() else 0, 100_000)
        try:
            yield
        except sqlite3.OperationalError as exc:
            _ended(exc, pressed, inner=False)
        finally:
            conn.set_progress_handler(None, 0)
            del guarded[id(conn)]


def _ended(exc: sqlite3.OperationalError, pressed: list[int], inner: bool) -> None:
    """A statement that failed under a guard: Ctrl-C's (raised as the outermost guard ends, or at once from an inner
    one, so no handler between takes it for SQLite's error), the cancel's, a stop's, or its own error."""
    if pressed:
        if inner:
            raise KeyboardInterrupt from None
        return  # (``ctrl_c_held`` raises it as it ends)
    check()  # (the cancel's)
    if "interrupted" in str(exc):  # (a stop, SIGTERM, whose handler raised in the progress one)
        raise KeyboardInterrupt from None
    raise exc
