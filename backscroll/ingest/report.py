"""What a sync tells its caller: the ``IndexReport`` it returns and the ``Progress`` it reports to.

Paths and reasons in its JSON are bounded (``sanitize.shorten``): they can hold a session's identifiers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backscroll.sanitize import shorten


@dataclass
class IndexReport:
    files_seen: int = 0
    files_changed: int = 0
    records_added: int = 0
    records_replaced: int = 0
    lines_skipped: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    newly_unreadable: int = 0  # of those, the ones the sync before could read (or had not met)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (path, what happened): nothing lost
    skipped_examples: list[tuple[str, int, str]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "files_scanned": self.files_seen,
            "files_changed": self.files_changed,
            "records_added": self.records_added,
            "records_replaced": self.records_replaced,
            "lines_skipped": self.lines_skipped,
            "unreadable": [{"path": shorten(p), "reason": shorten(r)} for p, r in self.unreadable],
            "notices": [{"path": shorten(p), "notice": shorten(n)} for p, n in self.notices],
            "seconds": round(self.seconds, 3),
        }


class Progress:
    """What sync reports while it runs; the CLI draws a bar from it. The default does nothing."""

    def start(self, total_files: int) -> None: ...
    def advance(self, path: str, records: int) -> None: ...
    def finish(self) -> None: ...
