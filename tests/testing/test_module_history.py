"""A history built once for a module (``BackscrollHome.at``), checked by many tests with ``recalled``."""

import pytest

import backscroll
from backscroll.testing import BackscrollHome, SessionFactory, recalled


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    home = BackscrollHome.at(tmp_path_factory.mktemp("history"))
    s = SessionFactory(home).claude(project="shop")
    s.user("Which queue should the background jobs use?")
    s.assistant("The background jobs queue goes in Postgres with SKIP LOCKED: we already run Postgres.")
    s.user("And the slow cart page?").assistant("The N+1 query is in CartSerializer.get_items")
    backscroll.index(config=home.config(), embed=False)
    return home


def test_one_history_answers_a_check(history):
    hit = recalled("which queue for background jobs", "SKIP LOCKED", config=history.config(), mode="lexical")
    assert hit.agent == "claude"


def test_and_another_and_a_miss_says_what_came_instead(history):
    recalled("slow cart serializer", "CartSerializer", config=history.config(), mode="lexical")
    with pytest.raises(AssertionError, match="not in the top 1 results") as failed:
        recalled("background jobs queue", "CartSerializer", k=1, config=history.config(), mode="lexical")
    assert "SKIP LOCKED" in str(failed.value)


def test_a_home_made_outside_the_fixture_reads_none_of_the_users_places(tmp_path, monkeypatch):
    """The agents' variables (``CLAUDE_CONFIG_DIR``, ``XDG_DATA_HOME``, …) and ``BACKSCROLL_CONFIG`` point at the
    user's own sessions and settings: a home's ``config()`` looks only inside it."""
    for name in ("CLAUDE_CONFIG_DIR", "XDG_DATA_HOME", "CODEX_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "mine" / name))
    monkeypatch.setenv("BACKSCROLL_CONFIG", str(tmp_path / "mine" / "config.toml"))
    home = BackscrollHome.at(tmp_path / "h")
    cfg = home.config()
    assert all(str(r.path).startswith(str(home.home)) for r in cfg.roots), [str(r.path) for r in cfg.roots]
    assert "mine" not in str(cfg.config_file.value)


def test_a_search_request_takes_a_datetime_or_a_date(history):
    from datetime import UTC, date, datetime

    from backscroll.request import SearchRequest

    since, until = datetime(2020, 1, 1, tzinfo=UTC), date(2099, 1, 1)
    req = SearchRequest("background jobs queue", since=since, until=until, mode="lexical")  # type: ignore[arg-type]
    assert (req.since, req.until) == ("2020-01-01T00:00:00+00:00", "2099-01-01")
    with backscroll.Backscroll(config=history.config()) as bs:
        assert bs.search(req).results


def test_a_home_made_outside_the_fixture_ignores_backscrolls_own_variables_too(tmp_path, monkeypatch):
    """The user's ``BACKSCROLL_REDACT=0`` stored a test's token unredacted; a search could leave a background
    embedding worker running; ``status`` looked for unread agents in the process's HOME."""
    monkeypatch.setenv("BACKSCROLL_REDACT", "0")
    monkeypatch.setenv("BACKSCROLL_EMBED", "0")
    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")
    monkeypatch.setenv("BACKSCROLL_ARCHIVE_URL", "postgresql://alice@db.example/team")
    mine = tmp_path / "mine"
    (mine / ".junie" / "sessions" / "abc").mkdir(parents=True)
    (mine / ".junie" / "sessions" / "abc" / "events.jsonl").write_text("{}\n")
    monkeypatch.setenv("HOME", str(mine))
    home = BackscrollHome.at(tmp_path / "h")
    cfg = home.config()
    assert (cfg.redact.value, cfg.embed.value, cfg.background.value) == (True, True, False)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    SessionFactory(home).claude(project="shop").user(f"the deploy token is {token}").assistant("noted")
    backscroll.index(config=cfg, embed=False)
    shown = backscroll.show(backscroll.sessions(config=cfg, all=True)[0].session_id, config=cfg)
    assert token not in " ".join(r.text for r in shown.records)
    status = backscroll.status(config=cfg)
    assert not any("junie" in w for w in status.warnings), "the user's HOME, not this one"
    assert status.archive is None, "the user's team archive is not this home's"


def test_a_builder_takes_a_datetime_and_names_a_time_it_cannot_read(tmp_path):
    from datetime import datetime

    home = BackscrollHome.at(tmp_path / "h")
    factory = SessionFactory(home)
    s = factory.claude(project="shop", start=datetime(2026, 10, 3, 9, 0))  # (no zone: UTC)
    s.user("first").at(datetime.fromisoformat("2026-10-04T10:00:00+02:00")).assistant("second")
    backscroll.index(config=home.config(), embed=False)
    shown = backscroll.show(s.session_id, config=home.config())
    assert [r.timestamp for r in shown.records] == ["2026-10-03T09:00:00.000Z", "2026-10-04T08:00:00.000Z"]
    with pytest.raises(ValueError, match=r"start= takes an ISO time .* not 'not a date'"):
        factory.codex(start="not a date")
    with pytest.raises(ValueError, match=r"at\(\) takes an ISO time"):
        s.at("yesterday-ish")
    with pytest.raises(ValueError, match="k must be a whole number from 1 to 1,000, not '3'"):
        recalled("first", "first", k="3", config=home.config())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a marker to look for, as text"):
        recalled("first", 42, config=home.config())  # type: ignore[arg-type]
