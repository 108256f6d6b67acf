"""Ctrl-C held while native code runs that a signal would leave in an error of its own (onnxruntime's session
set-up): it is felt as Ctrl-C once that code returns, not reported as a broken install."""

from __future__ import annotations

import contextlib
import signal
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
