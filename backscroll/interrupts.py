"""Ctrl-C while native code runs: held while code runs that a signal would leave in an error of its own
(onnxruntime's session set-up), felt once that code returns, not reported as a broken install; and felt at once
by a long SQLite statement (``PRAGMA integrity_check`` at millions of records), which Python cannot stop itself."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import threading
from collections.abc import Iterator


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
def interruptible(conn: sqlite3.Connection) -> Iterator[None]:
    """Ctrl-C ends the statement ``conn`` runs in the body at once, and is raised as ``KeyboardInterrupt`` when the
    body ends, not as SQLite's "interrupted". (SQLite calls a progress handler every so many steps: Python's signal
    handler runs there, and the statement is told to stop.)"""
    with ctrl_c_held() as pressed:
        conn.set_progress_handler(lambda: 1 if pressed else 0, 100_000)
        try:
            yield
        except sqlite3.OperationalError as exc:
            if not pressed and "interrupted" in str(exc):  # (a stop, SIGTERM, whose handler raised in the progress one)
                raise KeyboardInterrupt from None
            if not pressed:
                raise  # (else it is Ctrl-C: ``ctrl_c_held`` raises it as it ends)
        finally:
            conn.set_progress_handler(None, 0)
