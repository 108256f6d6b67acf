"""Progress bars on stderr (rich), shown only on a terminal."""

from __future__ import annotations


class FilesBar:
    """Session files read and records added."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.records = 0
        self.bar = Progress(
            TextColumn("[bold]reading sessions"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[records]} records"), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True,
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


class EmbedBar:
    """Prose records embedded, with texts per second and the time left."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                                   TimeRemainingColumn)

        self.bar = Progress(
            TextColumn("[bold]embedding prose"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
            console=Console(stderr=True), transient=True,
        )
        self.task = None
        self._t0 = 0.0

    def start(self, total: int) -> None:
        import time

        if total:
            self._t0 = time.perf_counter()
            self.bar.start()
            self.task = self.bar.add_task("embed", total=total, rate="")

    def advance(self, done: int) -> None:
        import time

        if self.task is not None:
            rate = done / max(time.perf_counter() - self._t0, 1e-6)
            self.bar.update(self.task, completed=done, rate=f"{rate:,.0f} texts/s")

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()
