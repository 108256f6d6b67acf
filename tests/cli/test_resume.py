"""`backscroll resume`: back into a session in its own agent, run as a person would (stub agents on PATH)."""

import json
import os
import stat

import pytest
from helpers import cli_env, run_cli

from backscroll.ingest.sources import AGENTS
from backscroll.integrations.resume import forms, resumption


def _stub(bin_dir, name):
    """An agent executable that records its argv and working directory, and exits 0."""
    path = bin_dir / name
    log = bin_dir / f"{name}.log"
    path.write_text(f'#!/bin/sh\nprintf "%s\\n" "$PWD" "$@" > "{log}"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return log


@pytest.fixture
def stubs(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    return bin_dir


def _env(home, bin_dir, *names):
    logs = {n: _stub(bin_dir, n) for n in names}
    return cli_env(home, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"), logs


def test_resume_runs_the_agents_own_command_in_the_sessions_directory(session_builder, backscroll_index,
                                                                      backscroll_home, stubs, tmp_path):
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    s = session_builder.claude(cwd=str(project))
    s.user("why is the invoice total off by a cent?").assistant("rounding per line; now rounded once")
    c = session_builder.codex(cwd=str(project))
    c.user("add the refund endpoint").assistant("added POST /refunds")
    backscroll_index(embed=False)
    env, logs = _env(backscroll_home, stubs, "claude", "codex")
    r = run_cli(backscroll_home, "resume", s.session_id[:8], env=env)
    assert r.returncode == 0, r.stderr
    assert logs["claude"].read_text().splitlines() == [str(project), "--resume", s.session_id]
    assert f"resuming claude session {s.session_id} in {project}" in r.stderr
    rid = json.loads(run_cli(backscroll_home, "search", "refund endpoint", "--json", env=env).stdout)["results"][0]
    r = run_cli(backscroll_home, "resume", rid["record_id"], env=env)
    assert r.returncode == 0 and logs["codex"].read_text().splitlines() == [str(project), "resume", c.session_id]


def test_a_relative_path_entry_never_runs_a_program_of_the_sessions_directory(session_builder, backscroll_index,
                                                                             backscroll_home, tmp_path):
    """``PATH=.:…`` or ``node_modules/.bin``: the agent is the one found where resume was run, not one the
    session's directory holds (resume changes into it before running the agent)."""
    project = tmp_path / "repo"
    (project / "bin").mkdir(parents=True)
    s = session_builder.claude(cwd=str(project))
    s.user("tidy the importer").assistant("done")
    backscroll_index(embed=False)
    planted = _stub(project / "bin", "claude")
    here = tmp_path / "here"
    (here / "bin").mkdir(parents=True)
    mine = _stub(here / "bin", "claude")
    env = cli_env(backscroll_home, PATH=f"bin{os.pathsep}{os.environ['PATH']}")
    r = run_cli(backscroll_home, "resume", s.session_id, env=env, cwd=here)
    assert r.returncode == 0, r.stderr
    assert mine.read_text().splitlines() == [str(project), "--resume", s.session_id] and not planted.exists()


def test_resume_print_a_subagent_and_an_agent_that_is_not_installed(session_builder, backscroll_index,
                                                                    backscroll_home, stubs):
    s = session_builder.claude(project="gone")
    s.user("plan the migration").assistant("three steps")
    sub = s.subagent()
    sub.user("read the schema").assistant("12 tables")
    backscroll_index(embed=False)
    env, _logs = _env(backscroll_home, stubs)
    env["PATH"] = str(stubs)  # no claude here
    subagent_id = next(x["session_id"] for x in json.loads(
        run_cli(backscroll_home, "list", "--all", "--json", env=env).stdout)["sessions"] if x["is_sidechain"])
    r = run_cli(backscroll_home, "resume", subagent_id, "--print", env=env)
    assert r.returncode == 0 and r.stdout == f"cd /home/dev/gone && claude --resume {s.session_id}\n", r.stderr
    assert "is a subagent: its parent session resumes" in r.stderr
    assert "/home/dev/gone is not on this machine (`mkdir -p /home/dev/gone` makes it" in r.stderr
    r = run_cli(backscroll_home, "resume", s.session_id, env=env)
    assert r.returncode == 2 and r.stdout == f"cd /home/dev/gone && claude --resume {s.session_id}\n"
    assert "not resumed: its directory /home/dev/gone is not on this machine" in r.stderr
    r = run_cli(backscroll_home, "resume", s.session_id, "--json", "--no-sync", env=env)
    assert json.loads(r.stdout)["argv"] == ["claude", "--resume", s.session_id]
    assert json.loads(r.stdout)["cwd"] == "/home/dev/gone", "the session's directory, kept"


def test_resume_never_runs_an_agent_where_the_session_did_not_run(session_builder, backscroll_index,
                                                                   backscroll_home, stubs, tmp_path):
    """A directory gone or not known, the agent ran where you were: Claude found no conversation there, and a
    resumed session's tools acted on another checkout. A log the agent deleted cannot be resumed either."""
    s = session_builder.claude(project="gone")
    s.user("plan the migration").assistant("three steps")
    here = tmp_path / "work"
    here.mkdir()
    kept = session_builder.claude(cwd=str(here))
    kept.user("tidy the importer").assistant("done")
    backscroll_index(embed=False)
    env, logs = _env(backscroll_home, stubs, "claude")
    r = run_cli(backscroll_home, "resume", s.session_id, env=env, cwd=here)
    assert r.returncode == 2 and "not resumed: its directory /home/dev/gone" in r.stderr, r.stderr
    assert not logs["claude"].exists(), "the agent never ran"
    for cwd in (None, "acme/ledger", "-rf evil"):
        how = resumption({"agent": "claude", "session_id": "abc", "cwd": cwd}, exists=lambda _p: True)
        assert how.blocked and how.blocked.startswith("its directory is not known") and how.cwd is None, cwd
        assert how.command == "claude --resume abc"
    for cwd in ("/srv/a\nFAKE", "/srv/a\u202eb", "/srv/\x1b]0;t\x07"):  # (a name no command line shows as itself)
        how = resumption({"agent": "claude", "session_id": "abc", "cwd": cwd}, exists=lambda _p: True)
        assert how.blocked and "does not show as itself" in how.blocked and how.cwd is None, cwd
    decomposed = "/Users/zoe\u0301/cafe\u0301"  # (as macOS may name a folder: decomposed, and shown as itself)
    how = resumption({"agent": "claude", "session_id": "abc", "cwd": decomposed}, exists=lambda _p: True)
    assert how.blocked is None and how.cwd == decomposed
    kept.path.rename(tmp_path / "moved.jsonl")  # (the agent's clean-up; backscroll keeps the records)
    r = run_cli(backscroll_home, "resume", kept.session_id, "--print", env=env)
    assert r.returncode == 2 and "claude no longer has this session" in r.stderr, r.stderr
    assert f"backscroll show {kept.session_id}" in r.stderr and not logs["claude"].exists()


def test_a_session_of_an_editor_is_not_given_its_cli_s_command():
    for agent, path, says in (("cursor", "/h/.config/Cursor/User/globalStorage/state.vscdb#c1", "Cursor editor"),
                              ("copilot", "/h/.config/Code/User/workspaceStorage/ab12/chatSessions/c2.json",
                               "VS Code")):
        how = resumption({"agent": agent, "session_id": "c1", "cwd": "/srv", "source_path": path},
                         exists=lambda _p: True)
        assert how.argv is None and says in how.notes[-1], (agent, how)
    cli = resumption({"agent": "copilot", "session_id": "c3", "cwd": "/srv",
                      "source_path": "/h/.copilot/session-state/c3/events.jsonl"}, exists=lambda _p: True)
    assert cli.command == "cd /srv && copilot --resume=c3"


def test_kimi_s_context_before_a_compaction_resumes_its_session(backscroll_home, backscroll_index):
    """Kimi keeps what a session held before a compaction in ``context_1.jsonl``, stored as ``<id>~1``: an id Kimi
    does not know; the session it belongs to resumes, and the note says so."""
    import shutil

    from helpers import TESTS

    shutil.copytree(TESTS / "data" / "kimi", backscroll_home.home / ".kimi")
    backscroll_index(embed=False)
    sid = "3c2b1a09-8f7e-4d6c-9b5a-0e1d2c3b4a59"
    r = run_cli(backscroll_home, "resume", f"{sid}~1", "--print", "--no-sync")
    assert r.returncode == 0 and r.stdout == f"cd /home/dev/shop && kimi --session {sid}\n", r.stderr
    assert f"{sid}~1 is what session {sid} held before a compaction" in r.stderr


def test_an_agent_without_a_resume_command_says_what_comes_closest():
    how = resumption({"agent": "cline", "session_id": "1760000000000", "cwd": "/tmp"})
    assert how.argv is None and how.command is None and "task history" in how.notes[-1]
    how = resumption({"agent": "pi", "session_id": "8c2d", "cwd": "/srv/app", "source_path": "/h/s/8c2d.jsonl"},
                     exists=lambda _p: True)
    assert how.command == "cd /srv/app && pi --session /h/s/8c2d.jsonl"
    how = resumption({"agent": "claude", "session_id": "x:y", "cwd": "/a b"}, exists=lambda _p: True)
    assert how.command == "cd '/a b' && claude --resume x:y", "quoted for a shell"
    assert resumption({"agent": "claude", "session_id": "x y", "cwd": None}).argv is None, "never split in two"


def test_every_agent_has_a_resume_form_that_names_its_source():
    table = forms()
    assert set(table) == set(AGENTS), "one form per registered agent"
    for agent, form in table.items():
        assert form.get("source") and form.get("confidence"), agent
        assert ("argv" in form) != ("none" in form), agent
        assert "argv" not in form or form["argv"][0] and all(isinstance(a, str) for a in form["argv"]), agent


@pytest.mark.parametrize("how", ["backscroll resume", "its own agent"])
def test_a_session_resumed_is_read_by_the_next_searches_however_old_its_file(session_builder, backscroll_index,
                                                                           backscroll_home, monkeypatch, how):
    """An old file is looked at by a search's sync only in turn; the one a session resumed in is written again by its
    agent, and every sync looks at it for a day: noted by `resume`, or, resumed in the agent itself (``claude
    --resume``), by the session-start hook (source ``resume``)."""
    import backscroll
    from backscroll.ingest import quick
    from backscroll.integrations import hooks
    from backscroll.store.db import Store

    monkeypatch.setattr(quick, "ROTATE", 0)  # (no turn reaches it: at 36,000 files, one in 140 searches does)
    s = session_builder.claude(project="shop")
    s.user("the old plan for the zeppelin hangar")
    for written_years_ago in (s.path, s.path.parent, s.path.parent.parent):
        os.utime(written_years_ago, (1_600_000_000, 1_600_000_000))
    backscroll_index()
    cfg = backscroll_home.config()
    store = Store.open(cfg.db_path)
    vouched = store.vouched()
    store.close()
    if how == "backscroll resume":
        backscroll.resume(s.session_id, config=cfg)
    else:
        start = {"session_id": s.session_id, "transcript_path": str(s.path), "cwd": "/tmp", "source": "resume"}
        hooks.run("claude", "session-start", json.dumps(start).encode(), cfg)
    store = Store.open(cfg.db_path)
    assert store.vouched() == vouched, "noting the resume leaves a checked store vouched for"
    store.close()
    s.user("resumed: the hangar doors open inward now")
    found = backscroll.search("hangar doors inward", config=cfg, sync=True, mode="lexical")
    assert [h.text for h in found.results][:1] == ["resumed: the hangar doors open inward now"]


def test_resume_answers_when_the_store_cannot_be_written_at_once(session_builder, backscroll_index, backscroll_home):
    """Noting the resume is record-keeping: a store another connection is writing skips it, never fails resume."""
    import sqlite3

    import backscroll

    s = session_builder.claude(project="shop")
    s.user("the old plan for the zeppelin hangar")
    backscroll_index()
    cfg = backscroll_home.config()
    other = sqlite3.connect(cfg.db_path)
    other.execute("BEGIN IMMEDIATE")  # (a write in progress elsewhere)
    try:
        assert backscroll.resume(s.session_id, config=cfg).command
    finally:
        other.rollback()
        other.close()
    with backscroll.Backscroll(config=cfg) as bs:  # a held handle goes on working after a skipped note
        assert bs.resume(s.session_id).command and bs.resume(s.session_id).command


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_the_agent_starts_with_the_signals_a_shell_would_give_it(session_builder, backscroll_index, backscroll_home,
                                                                 stubs, tmp_path):
    """Python ignores SIGPIPE (and SIGXFSZ), and an exec'd program inherits what is ignored: the resumed agent's
    `cmd | head` pipelines never ended on a closed pipe."""
    s = session_builder.claude(cwd=str(tmp_path))
    s.user("tidy the importer").assistant("done")
    backscroll_index(embed=False)
    agent = stubs / "claude"
    log = stubs / "claude.log"
    agent.write_text(f'#!/bin/sh\ngrep SigIgn /proc/$$/status > "{log}"\n')
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR)
    env = cli_env(backscroll_home, PATH=f"{stubs}{os.pathsep}{os.environ['PATH']}")
    r = run_cli(backscroll_home, "resume", s.session_id, env=env)
    ignored = int(log.read_text().split()[1], 16)
    assert r.returncode == 0 and not ignored & (1 << (13 - 1)) and not ignored & (1 << (25 - 1)), hex(ignored)
