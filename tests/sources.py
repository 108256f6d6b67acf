"""A local ranking source whose meaning is constructed by the test: a fixed list of the closest records and a
cosine for any other (0 for those not named: no vector would have said more)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from backscroll.retrieval.local import LocalSource


@dataclass
class ConstructedMeaning(LocalSource):
    nearest: list[tuple[int, float]] = field(default_factory=list)
    lookup: dict[int, float] = field(default_factory=dict)

    def by_meaning(self, scope, depth: int) -> list[tuple[int, float]] | None:
        return list(self.nearest)

    def cosines(self, ids: Iterable[int]) -> dict[int, float]:
        return {i: self.lookup.get(i, 0.0) for i in ids}


def constructed(store, lex, query_plan, nearest=(), lookup=None, mode="hybrid") -> ConstructedMeaning:
    from backscroll.config import Config

    cfg = Config.__new__(Config)  # (never read: meaning is constructed)
    return ConstructedMeaning(store, lex, cfg, query_plan, mode, nearest=list(nearest), lookup=dict(lookup or {}))
