"""`backscroll pick`: driven headless through Textual's own test driver, and once on a real pseudo-terminal."""

import os
import pty
import re
import select
import sys
import time

import pytest
from helpers import cli_env
from textual.widgets import OptionList

from backscroll.archive import Backscroll
from backscroll.cli.picker import Picker


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def history(session_builder, backscroll_index):
    a = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    a.user("which job queue should the shop use?").assistant("procrastinate: it runs inside postgres, no broker")
    b = session_builder.codex(project="pay", start="2026-10-05T09:00:00Z")
    b.user("the webhook retries double charge").assistant("added an idempotency key to capture")
    backscroll_index()
    return a, b


async def _until(pilot, done, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds  # (a bound on a hang, not a measure of speed)
    while not done() and time.monotonic() < deadline:
        await pilot.pause(0.05)
    assert done()


def _picker(home) -> Picker:
    cfg = home.config()
    return Picker(lambda: Backscroll(config=cfg))


async def _typed(pilot, app: Picker, words: str) -> OptionList:
    """``words`` typed into the query box; the list of hits once it holds some."""
    await pilot.press(*words)
    listing = app.query_one("#hits", OptionList)
    await _until(pilot, lambda: listing.option_count > 0)
    return listing


@pytest.mark.anyio
async def test_typing_searches_the_preview_follows_and_a_key_picks(history, backscroll_home):
    a, b = history
    app = _picker(backscroll_home)
    async with app.run_test(size=(140, 40)) as pilot:
        listing = await _typed(pilot, app, "job queue")
        preview = app.query_one("#preview-text")
        await _until(pilot, lambda: "procrastinate" in str(preview.render()))
        assert "which job queue" in str(preview.render()), "the hit in its conversation"
        await pilot.press("ctrl+u", *"idempotency")
        await _until(pilot, lambda: listing.option_count > 0 and app._hits[0].session_id == b.session_id)
        await pilot.press("ctrl+y")
    assert app.return_value is not None
    assert app.return_value.action == "copy" and app.return_value.hit.session_id == b.session_id


@pytest.mark.anyio
async def test_quitting_picks_nothing_and_filters_hold(history, backscroll_home):
    a, b = history
    cfg = backscroll_home.config()
    app = Picker(lambda: Backscroll(config=cfg), "job queue", {"project": "pay"})
    async with app.run_test(size=(140, 40)) as pilot:
        status = app.query_one("#status")
        await _until(pilot, lambda: "hits" in str(status.render()) and "words only" not in str(status.render()))
        assert all(h.project == "pay" for h in app._hits)
        await pilot.press("escape")
    assert app.return_value is None


def test_pick_on_a_real_terminal_prints_only_the_chosen_action(history, backscroll_home):
    a, _b = history
    env = {**cli_env(backscroll_home), "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "30"}
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "backscroll", "pick", "job", "queue", "--no-sync"], env)
    seen = b""
    deadline = time.monotonic() + 60  # (a bound on a hang)
    sent = False
    while time.monotonic() < deadline:
        ready, _w, _x = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not sent and b"procrastinate" in seen:
            os.write(fd, b"\x19")  # Ctrl-Y: copy the id
            sent = True
    _pid, status = os.waitpid(pid, 0)
    assert sent, seen[-2000:]
    assert os.waitstatus_to_exitcode(status) == 0
    tail = seen.rsplit(b"\x1b[?1049l", 1)[-1].decode(errors="replace")  # after the screen is given back
    printed = [line.strip() for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", tail).splitlines() if line.strip()]
    assert len(printed) == 1, f"only the chosen action: {tail!r}"
    from helpers import rows

    assert rows(backscroll_home, "SELECT session_id FROM records WHERE record_id = ?", (printed[0],))[0][
        "session_id"] == a.session_id


@pytest.mark.anyio
async def test_ctrl_e_in_the_query_box_opens_the_hit_and_a_missing_editor_says_so(history, backscroll_home,
                                                                                  monkeypatch):
    """The query box took Ctrl-E for end-of-line, so the footer's "open in $EDITOR" did nothing until Tab; an
    editor not on PATH was then an internal error."""
    from backscroll.cli.pick import act
    from backscroll.errors import UsageError

    app = _picker(backscroll_home)
    async with app.run_test(size=(140, 40)) as pilot:
        await _typed(pilot, app, "job queue")
        await pilot.press("ctrl+e")
    assert app.return_value is not None and app.return_value.action == "edit"
    for editor, said in (("no-such-editor-here", "cannot run the editor 'no-such-editor-here'"),
                         ("'vi", "is no command line"), ("  ", "names no editor")):
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("EDITOR", editor)
        with pytest.raises(UsageError, match=said) as err:
            act(app.return_value)
        assert "$EDITOR" in (err.value.hint or "")
