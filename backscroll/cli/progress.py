"""Progress bars on stderr (rich), shown only on a person's terminal.

``BACKSCROLL_PROGRESS=1`` shows them whatever stderr is (``0`` never), e.g. under a test harness."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from backscroll.ingest.report import Progress as SyncProgress

if TYPE_CHECKING:
    from rich.progress import TaskID


def forced() -> bool | None:
    """True or False when $BACKSCROLL_PROGRESS says so, None to follow the terminal."""
    value = os.environ.get("BACKSCROLL_PROGRESS", "").strip().lower()
    if value in ("1", "true", "yes", "on", "always"):
        return True
    if value in ("0", "false", "no", "off", "never"):
        return False
    return None


def wanted() -> bool:
    """Whether to show progress on stderr: on a terminal, or when $BACKSCROLL_PROGRESS forces it; not when an agent's
    shell runs the command on a pseudo-terminal (Codex), which would keep every repaint of the bar as output."""
    force = forced()
    if force is not None:
        return force
    from backscroll.cli.common import run_by_agent

    if run_by_agent(os.environ):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _console():
    from rich.console import Console

    return Console(stderr=True, force_terminal=True if forced() else None)


class FilesBar(SyncProgress):
    """Session files read and records added."""

    def __init__(self):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.records = 0
        self.bar = Progress(
            TextColumn("[bold]reading sessions"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[records]} records"), TimeElapsedColumn(),
            console=_console(), transient=True,
        )
        self.task = None

    def start(self, total_files: int) -> None:
        if total_files:
            self.bar.start()
            self.task = self.bar.add_task("read", total=total_files, records=0)

    def advance(self, path: str, records: int) -> None:
        if self.task is not None:
            self.records += records
            self.bar.update(self.task, advance=1, records=self.records)

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()


def eta_text(done: float, total: int, elapsed: float) -> str:
    """Time left at the average rate so far ("" until there is a rate to go by). Pure."""
    if done <= 0 or elapsed <= 0 or total <= done:
        return ""
    left = (total - done) * elapsed / done
    if left < 60:
        return f"{left:.0f} s left"
    if left < 3600:
        return f"{left / 60:.0f} min left"
    return f"{left / 3600:.1f} h left"


class CountBar:
    """Items done out of a total, with the rate and the time left (``start``/``advance``/``finish``).

    The time left comes from this run's own average rate, not from rich's short smoothing window
    (embedding commits about once a second, in steps of uneven size)."""

    def __init__(self, label: str, unit: str):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn

        self.unit = unit
        self.bar = Progress(
            TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[eta]}"),
            console=_console(), transient=True,
        )
        self.task: TaskID | None = None
        self._t0 = 0.0
        self._done = 0
        self._total = 0

    def start(self, total: int) -> None:
        import time

        if total:
            self._t0 = time.perf_counter()
            self._total = total
            self.bar.start()
            self.task = self.bar.add_task(self.unit, total=total, rate="", eta="")

    def advance(self, done: int, worked: float | None = None) -> None:
        """``done``: the count so far; ``worked``: the items' worth of work done, when items cost unevenly
        (the time left goes by it)."""
        import time

        if self.task is not None:
            self._done = done
            elapsed = max(time.perf_counter() - self._t0, 1e-6)
            self.bar.update(self.task, completed=done, rate=f"{done / elapsed:,.0f} {self.unit}/s",
                            eta=eta_text(done if worked is None else worked, self._total, elapsed))

    def add(self, n: int) -> None:
        self.advance(self._done + n)

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()
            self.task = None


def EmbedBar() -> CountBar:
    return CountBar("embedding prose", "texts")


def WordsBar() -> CountBar:
    return CountBar("indexing words", "records")


class StepsBar:
    """The parts of a long piece of work, one after another, with the time spent: called with each part's name as
    it starts (``status --check``: SQLite's integrity_check says nothing of how far it has got)."""

    def __init__(self, label: str, names: dict[str, str]):
        from rich.progress import MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.names = names
        self.bar = Progress(SpinnerColumn(), TextColumn(f"[bold]{label}"), MofNCompleteColumn(),
                            TextColumn("{task.description}"), TimeElapsedColumn(), console=_console(), transient=True)
        self.task: TaskID | None = None

    def __call__(self, part: str) -> None:
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task(self.names.get(part, part), total=len(self.names), completed=1)
        else:
            self.bar.update(self.task, advance=1, description=self.names.get(part, part))

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()
            self.task = None
