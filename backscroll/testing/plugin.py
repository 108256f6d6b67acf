"""The pytest plugin: its ini switch, the isolated home, the session factory, and the fixtures.

``backscroll.testing`` (the ``pytest11`` entry point) re-exports everything here; see its
docstring for how a project uses the fixtures or turns them off.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from backscroll.dates import format_ts, parse_ts
from backscroll.testing.cli_sessions import CopilotCliSession, CursorCliSession
from backscroll.testing.fake import register_fake
from backscroll.testing.fixture_types import IndexRun, RecallCheck, SearchRun
from backscroll.testing.recall_check import recalled
from backscroll.testing.sessions import ClaudeSession, CodexSession, instant, uuid_for

if TYPE_CHECKING:
    from backscroll.archive import IndexOutcome
    from backscroll.config import Config
    from backscroll.types import Hit, SearchResult

# backscroll's variables and the agents'
# Where the user's sessions and configuration are: never read by a test's home, made by the fixture or not.
_PLACES = ("BACKSCROLL_CONFIG", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_HOME", "GEMINI_CLI_HOME", "QWEN_HOME",
           "QWEN_RUNTIME_DIR", "OPENCODE_DATA_DIR", "PI_CODING_AGENT_DIR", "XDG_DATA_HOME", "OMP_CODING_AGENT_DIR",
           "KIMI_SHARE_DIR", "COPILOT_HOME",
           "CLINE_DATA_DIR", "CLINE_DIR", "CLINE_SESSION_DATA_DIR", "KIMI_CODE_HOME", "HERMES_HOME", "GOOSE_PATH_ROOT",
           "CRUSH_GLOBAL_DATA", "FILE_STORE_PATH", "OPENHANDS_PERSISTENCE_DIR", "XDG_CONFIG_HOME",
           "FACTORY_HOME_OVERRIDE", "CONTINUE_GLOBAL_DIR", "OPENCLAW_STATE_DIR", "OPENCLAW_HOME", "VIBE_HOME",
           "VIBE_SESSION_LOGGING__SAVE_DIR", "KIRO_HOME")
_SCRUBBED_ENV = ("BACKSCROLL_HOME", "BACKSCROLL_EMBED", "BACKSCROLL_REDACT",
                 "BACKSCROLL_SESSION_ID", "BACKSCROLL_EMBEDDER", "BACKSCROLL_BACKGROUND", "BACKSCROLL_LOCK_WAIT",
                 "BACKSCROLL_DEBUG", "BACKSCROLL_PROGRESS", "BACKSCROLL_ARCHIVE_URL", "BACKSCROLL_HOOK_DEBUG",
                 "_BACKSCROLL_COMPLETE", *_PLACES, "NO_COLOR")
DEFAULT_START = "2026-10-01T09:00:00.000Z"  # the day before the first session: each starts a day after the last
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HANDED: dict[Path, set[str]] = {}  # the session ids each home's factories handed out (a builder writes nothing yet)
_FOLDER = re.compile(r"(?!\.\.?$)[\w.-]{1,200}", re.ASCII)  # a Cursor or Copilot session's folder name


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("backscroll_plugin", type="bool", default=True,
                  help="backscroll's fixtures (session_builder, backscroll_index, ...); false turns them off, "
                       "like -p no:backscroll")


_EMBEDDER_WAS = pytest.StashKey["str | None"]()


def pytest_configure(config: pytest.Config) -> None:
    """``$BACKSCROLL_TEST_EMBEDDER`` chooses the embedder for the whole run, not only under the fixtures: a module's
    history made with ``BackscrollHome.at`` (or a backscroll subprocess a test starts) embeds with the one the
    fixtures search with (vectors of another would leave those searches to words alone)."""
    chosen = os.environ.get("BACKSCROLL_TEST_EMBEDDER")
    if chosen and config.getini("backscroll_plugin"):
        config.stash[_EMBEDDER_WAS] = os.environ.get("BACKSCROLL_EMBEDDER")
        os.environ["BACKSCROLL_EMBEDDER"] = chosen
        register_fake()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _EMBEDDER_WAS in config.stash:
        was = config.stash[_EMBEDDER_WAS]
        if was is None:
            os.environ.pop("BACKSCROLL_EMBEDDER", None)
        else:
            os.environ["BACKSCROLL_EMBEDDER"] = was


def _check_enabled(config: pytest.Config) -> None:
    if not config.getini("backscroll_plugin"):
        pytest.fail("backscroll's pytest fixtures are turned off here (backscroll_plugin = false in the pytest "
                    "configuration): remove that line to use them, or run with -p no:backscroll to hide them",
                    pytrace=False)


@dataclass
class BackscrollHome:
    """An isolated HOME with the agents' default roots inside it, and a backscroll data dir."""

    root: Path
    home: Path
    data: Path
    apart: bool = False  # made outside the fixture (``at``): the user's and backscroll's variables are left out

    @property
    def claude_projects(self) -> Path:
        return self.home / ".claude" / "projects"

    @property
    def codex_sessions(self) -> Path:
        return self.home / ".codex" / "sessions"

    @classmethod
    def at(cls, root: Path) -> BackscrollHome:
        """A home made outside the fixture, under ``root`` (a module-scoped history: ``tmp_path_factory``)."""
        (root / "home").mkdir(parents=True, exist_ok=True)
        return cls(root, root / "home", root / "data", apart=True)

    def config(self, **kw: Any) -> Config:
        """The configuration of this home: its data dir, and the agents' folders inside ``home`` (whatever the
        process's own HOME; made with ``at``, whatever the agents' and backscroll's variables too, and with no
        background worker), so a home made outside the fixture never reads the user's sessions nor configuration;
        within one, a test may point a variable somewhere."""
        from backscroll.config import resolve

        env = {k: v for k, v in os.environ.items() if not (self.apart and k in _SCRUBBED_ENV)}  # (as the fixture)
        if self.apart:  # (no search leaves an embedding worker behind, as under the fixture)
            env["BACKSCROLL_BACKGROUND"] = "0"
        return resolve(home=self.data, **{"env": {**env, "HOME": str(self.home)}, **kw})


@dataclass
class SessionFactory:
    """``session_builder``: start Claude Code, Codex, Cursor CLI or Copilot CLI sessions inside the isolated home.

    Asking again for a session id already started returns its builder, which goes on writing that session (as
    an agent resuming it does)."""

    env: BackscrollHome
    start: str = DEFAULT_START
    step: float = 30.0
    _count: int = field(default=0)
    _started: dict[tuple[str, str], Any] = field(default_factory=dict)

    def _session_id(self, session_id: str | None, uuid: bool = True) -> str:
        self._count += 1
        if uuid and session_id is not None and not _UUID.fullmatch(session_id):
            raise ValueError(f"session_id {session_id[:80]!r} is not a UUID, and the agents name their session files "
                             "by one (backscroll would not read it): leave it out for a fresh one, or pass "
                             f"backscroll.testing.uuid_for({session_id[:40]!r}) for a stable one")
        if not uuid and session_id is not None and not _FOLDER.fullmatch(session_id):
            raise ValueError(f"session_id {session_id[:80]!r} names the session's folder: letters, digits, '.', '_' "
                             "and '-' only (no path), or leave it out for a fresh one")
        if session_id is None:
            session_id = uuid_for(f"session:{self._count}")
            while self._taken(session_id):  # (another factory's, this home's)
                self._count += 1
                session_id = uuid_for(f"session:{self._count}")
        _HANDED.setdefault(self.env.root, set()).add(session_id)
        return session_id

    def _taken(self, session_id: str) -> bool:
        """Whether a factory of this home handed out this id already, or a session of it is on disk."""
        home = self.env.home
        return (session_id in _HANDED.get(self.env.root, ())
                or any(self.env.claude_projects.glob(f"*/{session_id}.jsonl"))
                or any(self.env.codex_sessions.glob(f"*/*/*/rollout-*-{session_id}.jsonl"))
                or any((home / ".cursor" / "chats").glob(f"*/{session_id}"))
                or (home / ".copilot" / "session-state" / session_id).exists())

    def _start(self, start: str | datetime | None) -> str:
        if start is not None:
            return instant(start, "start=")
        # successive sessions start a day apart, in order
        return format_ts(parse_ts(self.start) + timedelta(days=self._count))

    def _cwd(self, project: str, cwd: str | None) -> str:
        if cwd is not None:
            return cwd
        if not project.strip("/."):
            raise ValueError(f"project {project!r} names no folder: pass a name, or cwd= for a path")
        return f"/home/dev/{project}"

    def _begin(self, agent: str, session_id: str | None, cwd: str, start: str | datetime | None,
               make: Callable[[str], Any]) -> Any:
        """The session's builder: a new one, or the one already writing it. (Claude Code and Codex find their
        sessions by the UUID in the file's name; Cursor's and Copilot's folders may be named otherwise.)"""
        if session_id is not None and (agent, session_id.lower()) in self._started:
            was = self._started[(agent, session_id.lower())]
            if was.cwd != cwd:
                raise ValueError(f"{agent} session {session_id} was started in {was.cwd}, not {cwd}")
            if start is not None:
                raise ValueError(f"{agent} session {session_id} has started already: move its clock with .at(time)")
            return was
        builder = make(self._session_id(session_id, uuid=agent in ("claude", "codex")))
        self._started[(agent, builder.session_id.lower())] = builder
        return builder

    def claude(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
               start: str | datetime | None = None) -> ClaudeSession:
        where = self._cwd(project, cwd)
        return self._begin("claude", session_id, where, start, lambda sid: ClaudeSession(
            self.env.claude_projects, where, sid, self._start(start), self.step))

    def codex(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
              start: str | datetime | None = None) -> CodexSession:
        where = self._cwd(project, cwd)
        return self._begin("codex", session_id, where, start, lambda sid: CodexSession(
            self.env.codex_sessions, where, sid, self._start(start), self.step))

    def cursor(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
               start: str | datetime | None = None, title: str | None = None) -> CursorCliSession:
        where = self._cwd(project, cwd)
        return self._begin("cursor", session_id, where, start, lambda sid: CursorCliSession(
            self.env.home / ".cursor" / "chats", where, sid, self._start(start), self.step, title))

    def copilot(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
                start: str | datetime | None = None) -> CopilotCliSession:
        where = self._cwd(project, cwd)
        return self._begin("copilot", session_id, where, start, lambda sid: CopilotCliSession(
            self.env.home / ".copilot" / "session-state", where, sid, self._start(start), self.step))


# -- fixtures ----------------------------------------------------------------------------------

@pytest.fixture
def backscroll_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> BackscrollHome:
    """An isolated HOME and data dir; the agents' variables and backscroll's own are cleared."""
    _check_enabled(request.config)
    root = tmp_path / "backscroll-env"
    home, data = root / "home", root / "data"
    home.mkdir(parents=True)
    for name in _SCRUBBED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("BACKSCROLL_HOME", str(data))
    # ("--since 2026-10-15" is local midnight: a test means the same on every machine)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    request.node.stash[_PINNED] = True
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ORT_DISABLE_TELEMETRY", "1")  # (loading the model sets it: given back after the test)
    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "0")  # no search leaves an embedding worker behind a test
    # The real model by default, as users run it; set BACKSCROLL_TEST_EMBEDDER=fake for fast unit tests.
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", os.environ.get("BACKSCROLL_TEST_EMBEDDER", "minilm"))
    register_fake()
    if "BACKSCROLL_TEST_EMBEDDER" in os.environ:  # (a mistyped name would pass every test by words alone)
        from backscroll.indexes.embedders import unusable

        if (why := unusable()) is not None:
            pytest.fail(f"$BACKSCROLL_TEST_EMBEDDER cannot embed: {why.replace('$BACKSCROLL_EMBEDDER', 'it')}; "
                        "set it to fake, or unset it for the real model", pytrace=False)
    return BackscrollHome(root, home, data)


_PINNED = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """After every fixture of a test that pinned local time is torn down (``TZ`` is as it was, whatever the test
    set in between), the C library reads the zone again."""
    if item.stash.get(_PINNED, False):
        time.tzset()


@pytest.fixture
def session_builder(backscroll_home: BackscrollHome) -> SessionFactory:
    """Writes agents' session files into the isolated home: ``.claude()``, ``.codex()``, ``.cursor()`` and
    ``.copilot()`` start a session (a day after the last) and return its builder (``.user()``, ``.assistant()``,
    ``.tool()``, ``.search_echo()``, ...)."""
    return SessionFactory(backscroll_home)


@pytest.fixture
def backscroll_index(backscroll_home: BackscrollHome) -> IndexRun:
    """Call to index everything written so far; returns the index outcome (report and notes)."""
    import backscroll

    def run(**kw: Any) -> IndexOutcome:
        return backscroll.index(config=backscroll_home.config(), **kw)

    return run


@pytest.fixture
def backscroll_search(backscroll_home: BackscrollHome) -> SearchRun:
    """Call like ``backscroll.search``: syncs first, returns a ``SearchResult``."""
    import backscroll

    def run(query: str, **kw: Any) -> SearchResult:
        return backscroll.search(query, config=backscroll_home.config(), **{"sync": True, **kw})

    return run


@pytest.fixture
def assert_recalled(backscroll_search: SearchRun) -> RecallCheck:
    """``assert_recalled(query, marker, k=5, **options)``: some top-k result's whole text contains ``marker``;
    returns that hit. A failure shows what the search answered: its results, the hits a hinted filter left out
    (``also_matching``) and those held back as weak, its notes and the embedder that ran."""

    def check(query: str, marker: str, k: int = 5, **kw: Any) -> Hit:
        __tracebackhide__ = True
        return recalled(query, marker, k=k, search=backscroll_search, **kw)

    return check
