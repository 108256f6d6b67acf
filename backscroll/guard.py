"""``guarded``: a store failure raised as what it is (``store.failures``), for ``Backscroll``'s methods."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from backscroll.errors import BackscrollError, UsageError
from backscroll.store.failures import store_failure

F = TypeVar("F", bound=Callable[..., Any])


@functools.cache
def _signature(fn: Callable[..., Any]) -> inspect.Signature:
    return inspect.signature(fn)


def guarded(fn: F) -> F:
    """A full disk, a store that cannot be written or a damaged one raised as what it is
    (``store.failures.store_failure``) instead of an internal error; the caller's text made valid Unicode first, and
    a ``datetime`` or ``date`` for ``since``/``until`` its text; arguments the method does not take a usage error."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kw):
        from backscroll.dates import WHEN, as_when
        from backscroll.sanitize import whole

        args, kw = tuple(whole(a) for a in args), {k: whole(as_when(v) if k in WHEN else v) for k, v in kw.items()}
        try:
            _signature(fn).bind(self, *args, **kw)
        except TypeError as exc:
            raise UsageError(f"{fn.__name__}: {exc}", hint=f"help(backscroll.{fn.__name__}) says what it takes"
                             ) from None
        try:
            with self.lock:  # (one call at a time on a handle: another thread's close() never pulls its store away)
                return fn(self, *args, **kw)
        except BackscrollError:
            raise
        except Exception as exc:
            known = store_failure(exc, self.config.db_path)
            if known is None:
                raise
            raise known from None

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature F promises
