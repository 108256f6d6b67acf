"""The ordered list of a store's migrations (``schema.migrations``), kept apart from the migrations themselves."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations


class MigrationList:
    """The ordered migration functions; sqlite-utils is imported only when they are applied."""

    def __init__(self, name: str):
        self.name = name
        self.functions: list[Callable[[Database], None]] = []

    def __call__(self) -> Callable[[Callable[[Database], None]], Callable[[Database], None]]:
        def register(fn: Callable[[Database], None]) -> Callable[[Database], None]:
            if any(f.__name__ == fn.__name__ for f in self.functions):
                raise ValueError(f"migration {fn.__name__!r} is already registered")
            self.functions.append(fn)
            return fn

        return register

    def __len__(self) -> int:
        return len(self.functions)

    def build(self) -> Migrations:
        from sqlite_utils.migrations import Migrations

        built = Migrations(self.name)
        for fn in self.functions:
            built()(fn)
        return built

    def apply(self, db: Database, **kw: Any) -> None:
        self.build().apply(db, **kw)
