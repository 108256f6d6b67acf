"""The interactive picker (``backscroll pick``): search as you type, a preview of the hit in its conversation,
and a key for what to do with it. Built on Textual; imported only when the picker runs.

Searches run on one thread that owns the archive (its store is opened there): words first, then words and
meaning when the history has vectors; an answer to a query the user has since changed is dropped. The app
returns what was chosen; the command does it after the screen is restored, so nothing else is printed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from backscroll.cli.common import shell_word
from backscroll.cli.terminal import clean, label
from backscroll.dates import local_time
from backscroll.types import Hit

DEBOUNCE = 0.15  # seconds of quiet typing before a search runs
LIMIT = 30  # hits listed
PREVIEW_CONTEXT = 3  # records either side of the hit in the preview
PREVIEW_CHARS = 1200  # of each record


@dataclass(frozen=True)
class Choice:
    """What the user picked: ``action`` (show, resume, copy, edit) and the hit."""

    action: str
    hit: Hit


def hit_line(hit: Hit) -> Text:
    """One hit as the list shows it: who, where, when, and its snippet on one line."""
    line = Text()
    line.append(clean(f"{label(hit)} · {hit.project or '-'} · {local_time(hit.timestamp)}  "), style="dim")
    line.append(clean(" ".join((hit.snippet or hit.text).split()))[:200])
    return line


def preview(view: Any) -> Text:
    """A hit in its conversation (a ``SessionView``), the hit marked."""
    out = Text()
    s = view.session
    out.append(clean(f"{s.get('agent') or ''} · {s.get('project') or '-'} · {s.get('title') or ''}") + "\n\n",
               style="bold")
    for h in view.records:
        focus = h.record_id == view.focus
        out.append(("▶ " if focus else "  ") + clean(f"{local_time(h.timestamp)} · {label(h, subagent=False)}") + "\n",
                   style="bold yellow" if focus else "cyan")
        out.append(clean(h.text) + "\n\n")
    return out


class Picker(App[Choice | None]):
    """Type to search; arrows to move; the footer names the keys."""

    CSS = """
    #hits { width: 45%; }
    #preview { width: 55%; padding: 0 1; }
    #status { height: 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("enter", "choose('show')", "show"),
        Binding("ctrl+r", "choose('resume')", "resume"),
        Binding("ctrl+y", "choose('copy')", "copy id"),
        Binding("ctrl+e", "choose('edit')", "open in $EDITOR", priority=True),  # (the query box's end-of-line: End)
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("escape", "quit", "quit"),
        Binding("ctrl+c", "quit", show=False, priority=True),
    ]

    def __init__(self, open_archive: Callable[[], Any], query: str = "", options: dict | None = None,
                 *, vectors: bool = True, sync: bool = False) -> None:
        super().__init__()
        self._open_archive = open_archive
        self._sync = sync  # read new session lines first (on the search thread: the screen opens at once)
        self._archive: Any = None
        self._query = query
        self._options = dict(options or {})
        self._vectors = vectors
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="backscroll-pick")
        self._asked = 0  # the latest query's number: answers to older ones are dropped
        self._hits: list[Hit] = []
        self._timer: Any = None
        self._pending: set[concurrent.futures.Future] = set()

    def compose(self) -> ComposeResult:
        yield Input(value=self._query, placeholder="search your agents' sessions…", id="query")
        with Horizontal():
            yield OptionList(id="hits")
            with VerticalScroll(id="preview"):
                yield Static(id="preview-text")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self._query.strip():
            self._ask(self._query)

    def on_unmount(self) -> None:
        for pending in self._pending:  # (searches not begun are dropped; the archive closes after the one running)
            pending.cancel()
        self._pool.submit(self._close)
        self._pool.shutdown(wait=False)

    # -- searching, on the archive's own thread --------------------------------------------------------------

    def _close(self) -> None:
        if self._archive is not None:
            self._archive.close()

    def _run(self, fn: Callable[[Any], Any]) -> Any:
        if self._archive is None:
            self._archive = self._open_archive()
            if self._sync:
                self._archive.index(embed=False)
        return fn(self._archive)

    async def _call(self, fn: Callable[[Any], Any]) -> Any:
        future = self._pool.submit(self._run, fn)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return await asyncio.wrap_future(future)

    @on(Input.Submitted)
    def _submitted(self, _event: Input.Submitted) -> None:
        self.action_choose("show")

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE, lambda: self._ask(event.value))

    def _ask(self, text: str) -> None:
        self._asked += 1
        asked = self._asked

        async def search() -> None:  # (a function, not a coroutine: a worker cancelled before it starts leaves none)
            await self._search(text, asked)

        self.run_worker(search, group="search", exit_on_error=False)  # type: ignore[arg-type]  # (textual infers Never)

    async def _search(self, text: str, asked: int) -> None:
        status = self.query_one("#status", Static)
        if not text.strip():
            self._show([], "")
            return
        modes = ("lexical", None) if self._vectors else ("lexical",)
        for mode in modes:
            status.update("searching…" if mode == "lexical" else f"{len(self._hits)} by words; meaning arriving…")
            opts = {**self._options, "limit": LIMIT, "rerun": True, "weak": True}
            if mode:
                opts["mode"] = mode
            def searched(bs: Any, o: dict = opts) -> Any:
                return bs.search(text, **o)

            try:
                result = await self._call(searched)
            except Exception as exc:  # a bad query or filter: say so, keep the picker open
                if asked == self._asked:
                    status.update(Text(clean(getattr(exc, "message", str(exc))), style="red"))
                return
            if asked != self._asked:
                return
            self._show(list(result.results), f"{len(result.results)} hits" + (" (words only)" if mode else ""))

    def _show(self, hits: list[Hit], status: str) -> None:
        self._hits = hits
        listing = self.query_one("#hits", OptionList)
        listing.clear_options()
        listing.add_options([Option(hit_line(h), id=str(n)) for n, h in enumerate(hits)])
        if hits:
            listing.highlighted = 0
        else:
            self.query_one("#preview-text", Static).update("")
        self.query_one("#status", Static).update(status or "")

    # -- moving, previewing, choosing ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        listing = self.query_one("#hits", OptionList)
        if self._hits:
            listing.highlighted = max(0, min(len(self._hits) - 1, (listing.highlighted or 0) + step))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        n = int(event.option.id or 0)
        if n < len(self._hits):  # (an event of a list since replaced is let go)
            hit = self._hits[n]

            async def preview() -> None:  # (a function: a worker replaced before it starts leaves no coroutine)
                await self._preview(hit)

            self.run_worker(preview, group="preview", exclusive=True, exit_on_error=False)  # type: ignore[arg-type]

    async def _preview(self, hit: Hit) -> None:
        try:
            view = await self._call(lambda bs: bs.show(hit.record_id, context=PREVIEW_CONTEXT,
                                                       max_chars=PREVIEW_CHARS))
        except Exception as exc:  # a record gone meanwhile, a store busy: say so, keep the picker open
            self.query_one("#status", Static).update(Text(clean(getattr(exc, "message", str(exc))), style="red"))
            return
        if self._hits and self._current() is hit:
            self.query_one("#preview-text", Static).update(preview(view))

    def _current(self) -> Hit | None:
        n = self.query_one("#hits", OptionList).highlighted
        return self._hits[n] if n is not None and n < len(self._hits) else None

    @on(OptionList.OptionSelected)
    def _selected(self, _event: OptionList.OptionSelected) -> None:
        self.action_choose("show")

    def action_choose(self, action: str) -> None:
        hit = self._current()
        if hit is None:
            self.bell()
            return
        if action == "copy":
            self.copy_to_clipboard(shell_word(hit.record_id))  # (OSC 52: the terminal's clipboard, even over ssh)
        self.exit(Choice(action, hit))
