"""`backscroll install` never costs the user a byte, a permission or a concurrent write (issue #46, item 5)."""

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.integrations import install as inst

runner = CliRunner()

# Every JSON file install edits: (kind, agent, path under HOME).
JSON_TARGETS = [("hooks", "claude", ".claude/settings.json"), ("hooks", "codex", ".codex/hooks.json"),
                ("mcp", "claude", ".claude.json"), ("mcp", "gemini", ".gemini/settings.json")]


@pytest.fixture
def home(backscroll_home) -> Path:
    h = backscroll_home.home
    for agent in (".claude", ".codex", ".gemini"):
        (h / agent).mkdir()
    return h


def cli(*args: str):
    return runner.invoke(app, ["install", *args])


# -- 1. an entry the user adds in front of ours --------------------------------------------------------

@pytest.mark.parametrize("kind,agent,rel", JSON_TARGETS)
def test_an_entry_the_user_adds_in_front_of_ours_leaves_valid_json(home, kind, agent, rel):
    path = home / rel
    path.write_text("{}")
    inst.run(kind, agent)
    ours = path.read_text()
    assert ours.startswith("{\n")
    path.write_text('{\n  "theme": "dark",' + ours[1:])  # the user's line, joined to ours by their comma
    inst.run(kind, agent, uninstall=True)
    after = path.read_text()
    assert json.loads(after) == {"theme": "dark"}
    assert after == '{\n  "theme": "dark"\n}', "only our entry and the comma that joined it to the user's go"


def test_a_hook_group_the_user_puts_in_front_of_ours_in_an_empty_list_leaves_valid_json(home):
    path = home / ".claude" / "settings.json"
    path.write_text('{"hooks": {"SessionStart": [], "UserPromptSubmit": []}}')
    inst.run("hooks", "claude")
    mine = '{"hooks": [{"type": "command", "command": "say hi"}]},'
    text = path.read_text()
    at = text.index("[", text.index('"SessionStart"')) + 1
    path.write_text(text[:at] + mine + text[at:])
    inst.run("hooks", "claude", uninstall=True)
    assert json.loads(path.read_text()) == {"hooks": {"SessionStart": [json.loads(mine[:-1])],
                                                      "UserPromptSubmit": []}}
    assert path.read_text().startswith('{"hooks": {"SessionStart": [' + mine[:-1])


# -- 2. Codex: a comment the user writes after our table -----------------------------------------------

@pytest.mark.parametrize("gap", ["\n", ""])
def test_a_comment_after_our_codex_table_survives_uninstall(home, gap):
    path = home / ".codex" / "config.toml"
    path.write_text('model = "gpt-5"\n')
    inst.run("mcp", "codex")
    tail = f'{gap}# my work profile: keep it fast\n\n[profiles.work]\nmodel = "o3"\n'
    path.write_text(path.read_text() + tail)
    inst.run("mcp", "codex", uninstall=True)
    assert path.read_text() == 'model = "gpt-5"\n' + tail


@pytest.mark.parametrize("header", ["[mcp_servers.other]", "[mcp_servers.other]  # mine"])
def test_a_codex_config_with_crlf_line_ends_gets_every_byte_back(home, header):
    path = home / ".codex" / "config.toml"
    original = f'model = "o3"\r\n{header}\r\ncommand = "x"\r\n'.encode()
    path.write_bytes(original)
    inst.run("mcp", "codex")
    assert b"[mcp_servers.backscroll]" in path.read_bytes()
    assert not [c for c in inst.run("mcp", "codex") if c.changed], "installed as it would be now: idempotent"
    inst.run("mcp", "codex", uninstall=True)
    assert path.read_bytes() == original


def test_hook_handlers_the_user_wrote_around_backscroll_survive_install_and_uninstall(home):
    """Only handlers as install writes them are ours: one with another word, option or key is the user's."""
    path = home / ".claude" / "settings.json"
    mine = [{"hooks": [{"type": "command", "command": "backscroll hook claude prompt --dry-run x"}]},
            {"hooks": [{"type": "command", "command": "backscroll hook claude prompt", "statusMessage": "recall"}]},
            {"hooks": [{"type": "command", "command": "BACKSCROLL_HOME=/data/team backscroll hook claude prompt"}]}]
    original = json.dumps({"hooks": {"UserPromptSubmit": mine}}, indent=2)
    path.write_text(original)
    inst.run("hooks", "claude")
    assert json.loads(path.read_text())["hooks"]["UserPromptSubmit"][:3] == mine
    inst.run("hooks", "claude", uninstall=True)
    assert path.read_text() == original


@pytest.mark.parametrize("blank", ["", "  \n", "\n\n"])
@pytest.mark.parametrize("kind,agent,rel", JSON_TARGETS)
def test_an_empty_settings_file_is_empty_again_after_uninstall(home, kind, agent, rel, blank):
    path = home / rel
    path.write_text(blank)
    inst.run(kind, agent)
    assert json.loads(path.read_text()), "installed"
    inst.run(kind, agent, uninstall=True)
    assert path.read_text() == blank


def test_a_codex_table_named_inside_a_string_is_not_taken_for_one(home):
    path = home / ".codex" / "config.toml"
    original = 'notes = """\n[mcp_servers.backscroll]\nmy old snippet\n"""\nmodel = "o3"\n'
    path.write_text(original)
    changes = inst.run("mcp", "codex")
    assert changes[0].changed and not changes[0].notes
    assert path.read_text().count("[mcp_servers.backscroll]") == 2
    inst.run("mcp", "codex", uninstall=True)
    assert path.read_text() == original


def test_a_codex_table_or_a_skill_of_the_users_own_is_left_and_said_so(home):
    path = home / ".codex" / "config.toml"
    path.write_text('[mcp_servers.backscroll]\ncommand = "/opt/bs/backscroll"\nargs = ["mcp"]\n')
    change = inst.run("mcp", "codex")[0]
    assert not change.changed and "of your own" in change.notes[0]
    skill = home / ".claude" / "skills" / "backscroll" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("my own notes on backscroll\n")
    mine = [c for c in inst.run("skill", "claude") if c.path == skill][0]
    assert not mine.changed and "of your own" in mine.notes[0]


# -- 3. a tampered ledger ------------------------------------------------------------------------------

@pytest.mark.parametrize("named", ['\n\t"theme": "dark",', "dark", '"x": {"command": "y"}'])
def test_a_ledger_that_names_the_users_own_text_is_refused(home, backscroll_home, named):
    path = home / ".gemini" / "settings.json"
    path.write_text('{\n\t"theme": "dark",\n\t"mcpServers": {"x": {"command": "y"}}\n}\n')
    inst.run("mcp", "gemini")
    book = backscroll_home.data / "installed.json"
    data = json.loads(book.read_text())
    data["files"][str(path)]["mcp"]["inserted"].append(named)
    book.write_text(json.dumps(data))
    before = path.read_bytes()
    res = cli("mcp", "--agent", "gemini", "--uninstall")
    assert res.exit_code == 2, res.output
    assert str(path) in res.output and "installed.json" in res.output and "Traceback" not in res.output
    assert path.read_bytes() == before, "nothing is changed"


# -- 4. owner, group and mode are kept -----------------------------------------------------------------

@pytest.mark.parametrize("kind,agent,rel", [*JSON_TARGETS[::2], ("mcp", "codex", ".codex/config.toml"),
                                            ("instructions", "claude", ".claude/CLAUDE.md")])
def test_a_file_keeps_its_owner_group_and_mode(home, kind, agent, rel):
    path = home / rel
    path.write_text("# mine\n" if rel.endswith((".md", ".toml")) else '{"model": "opus"}')
    path.chmod(0o600)
    root = os.geteuid() == 0
    if root:  # the test machine runs as root: give the file to another user, as `sudo backscroll install` meets it
        os.chown(path, 12345, 12346)
    want = (12345, 12346) if root else (os.geteuid(), os.getegid())
    for uninstall in (False, True):
        inst.run(kind, agent, uninstall=uninstall)
        st = path.stat()
        assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (*want, 0o600), f"uninstall={uninstall}"


# -- 5. a read-only file is refused --------------------------------------------------------------------

@pytest.mark.parametrize("kind,agent,rel", [JSON_TARGETS[0], JSON_TARGETS[3], ("mcp", "codex", ".codex/config.toml"),
                                            ("instructions", "claude", ".claude/CLAUDE.md")])
def test_a_read_only_file_is_refused_and_left_untouched(home, kind, agent, rel):
    path = home / rel
    path.write_text("# mine\n" if rel.endswith((".md", ".toml")) else '{"model": "opus"}')
    for step in ("install", "uninstall"):
        if step == "uninstall":
            path.chmod(0o644)
            assert cli(kind, "--agent", agent).exit_code == 0
        path.chmod(0o444)
        before = path.read_bytes()
        res = cli(kind, "--agent", agent, *(["--uninstall"] if step == "uninstall" else []))
        assert res.exit_code == 2, (step, res.output)
        assert str(path) in res.output and "read-only" in res.output and "Traceback" not in res.output
        assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444, step
        assert cli(kind, "--agent", agent, "--dry-run").exit_code == 0, "a dry run still shows the change"


def test_a_folder_root_left_behind_is_refused_with_a_way_out_and_nothing_is_written(tmp_path):
    """``~/.claude`` owned by root (what ``sudo claude`` leaves): install as its user says whose folder it is and
    writes nothing, for no agent (not an internal error halfway). Run as an unprivileged user (root writes
    anywhere)."""
    import shutil
    import subprocess
    import tempfile

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root, to run backscroll as an unprivileged user")
    shared = Path(tempfile.mkdtemp(prefix="bs-install-", dir="/tmp"))
    try:
        shared.chmod(0o777)
        home = shared / "home"
        for agent in (".claude", ".codex"):
            (home / agent).mkdir(parents=True)
        subprocess.run(["chown", "-R", "65534:65534", str(home)], check=True)
        os.chown(home / ".claude", 0, 0)
        env = {k: v for k, v in os.environ.items() if not k.startswith("BACKSCROLL_")}
        env.update(HOME=str(home), BACKSCROLL_HOME=str(shared / "data"), HF_HUB_OFFLINE="1")
        for kind in ("skill", "hooks"):
            r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                                "backscroll", "install", kind], env=env, capture_output=True, text=True, timeout=60)
            assert r.returncode == 2 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r
            assert f"{home / '.claude'} is not yours to write in" in r.stderr and "chown" in r.stderr, r.stderr
        assert not list((home / ".codex").iterdir()) and not (home / ".agents").exists(), "no agent half-installed"
    finally:
        shutil.rmtree(shared, ignore_errors=True)


# -- 6. an agent writing the file while we do ----------------------------------------------------------

def test_an_agent_writing_the_file_while_we_do_keeps_its_write(home, monkeypatch):
    from backscroll.integrations import install_write

    path = home / ".claude.json"
    path.write_text('{"numStartups": 3}')
    writes: list[Path] = []

    def agent_writes(target):  # Claude Code rewrites .claude.json all the time
        if not writes:
            writes.append(target)
            Path(target).write_text('{"numStartups": 4}')

    monkeypatch.setattr(install_write, "race_window", agent_writes)
    inst.run("mcp", "claude")
    assert writes, "the window was reached"
    data = json.loads(path.read_text())
    assert data["numStartups"] == 4 and "backscroll" in data["mcpServers"], "the agent's write and ours"


def test_an_agent_that_keeps_writing_makes_install_refuse_without_losing_a_write(home, monkeypatch):
    from backscroll.integrations import install_write

    path = home / ".claude.json"
    path.write_text('{"numStartups": 0}')
    writes: list[Path] = []

    def agent_writes(target):
        writes.append(target)
        Path(target).write_text(json.dumps({"numStartups": len(writes)}))

    monkeypatch.setattr(install_write, "race_window", agent_writes)
    res = cli("mcp", "--agent", "claude")
    assert res.exit_code == 2, res.output
    assert str(path) in res.output and "changed while" in res.output and "Traceback" not in res.output
    assert json.loads(path.read_text()) == {"numStartups": len(writes)}, "the agent's last write stands"
    assert [p.name for p in home.iterdir() if ".tmp" in p.name] == []


# -- 7. two installs from two venvs --------------------------------------------------------------------

def venv_program(tmp_path: Path, name: str) -> str:
    exe = tmp_path / name / "bin" / "backscroll"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return str(exe)


@pytest.mark.parametrize("original", ['{"model": "opus"}', '{}', '{\n}\n',
                                      '{"model": "opus", "hooks": {"SessionStart": []}, "mcpServers": {}}'])
@pytest.mark.parametrize("uninstall_from", ["a", "b", "both"])
@pytest.mark.parametrize("reformatted", [False, True])
def test_two_installs_from_two_venvs_leave_no_empty_containers(home, tmp_path, monkeypatch, original,
                                                               uninstall_from, reformatted):
    progs = {name: venv_program(tmp_path, name) for name in ("a", "b")}
    targets = [t for t in JSON_TARGETS if t[1] != "codex"]
    for _kind, _agent, rel in targets:
        (home / rel).write_text(original)
    for name in ("a", "b"):
        monkeypatch.setattr(sys, "argv", [progs[name]])  # the backscroll each venv runs as
        for kind, agent, rel in targets:
            inst.run(kind, agent)
            if reformatted and name == "a":  # the agent rewrote its file in its own style in between
                (home / rel).write_text(json.dumps(json.loads((home / rel).read_text()), indent=4))
    for _kind, _agent, rel in targets:
        text = (home / rel).read_text()
        assert progs["b"] in text and progs["a"] not in text
    for name in (["a", "b"] if uninstall_from == "both" else [uninstall_from]):
        monkeypatch.setattr(sys, "argv", [progs[name]])
        for kind, agent, _rel in targets:
            inst.run(kind, agent, uninstall=True)
    for _kind, _agent, rel in targets:
        after = (home / rel).read_text()
        assert json.loads(after) == json.loads(original), rel
        if not reformatted:
            assert after == original, rel


# -- entries of the user's own that look like ours ------------------------------------------------------

def test_claude_mcp_adds_own_entry_is_never_taken_over_nor_removed(home):
    """``claude mcp add -s user backscroll -- backscroll mcp`` writes our shape with a bare program: it is the user's,
    kept byte for byte by install, reinstall and uninstall (with or without an install before)."""
    path = home / ".claude.json"
    mine = '{"numStartups": 3, "mcpServers": {"backscroll": {"type": "stdio", "command": "backscroll", ' \
           '"args": ["mcp"], "env": {}}}}'
    path.write_text(mine)
    inst.run("mcp", "claude", uninstall=True)
    assert path.read_text() == mine
    changes = inst.run("mcp", "claude")
    assert path.read_text() == mine and any("of your own" in n for c in changes for n in c.notes)
    inst.run("mcp", "claude")
    inst.run("mcp", "claude", uninstall=True)
    assert path.read_text() == mine


@pytest.mark.parametrize("extra", [{"timeout": 7}, {"statusMessage": "recalling"}])
def test_a_hook_the_user_wrote_or_changed_is_kept_and_never_doubled(home, extra):
    """A handler running ``backscroll hook claude prompt`` of the user's (another timeout, a key of theirs) is left
    as it is; that event gets no second handler, which would inject twice per prompt; uninstall keeps it."""
    path = home / ".claude" / "settings.json"
    inst.run("hooks", "claude")
    doc = json.loads(path.read_text())
    doc["hooks"]["UserPromptSubmit"][0]["hooks"][0].update(extra)
    path.write_text(json.dumps(doc, indent=2))
    mine = path.read_text()
    changes = inst.run("hooks", "claude")
    assert any("a handler of your own" in n for c in changes for n in c.notes)
    again = json.loads(path.read_text())
    assert again["hooks"]["UserPromptSubmit"] == doc["hooks"]["UserPromptSubmit"], "no second prompt hook"
    assert len(again["hooks"]["SessionStart"]) == 1
    inst.run("hooks", "claude", uninstall=True)
    left = json.loads(path.read_text())
    assert left["hooks"]["UserPromptSubmit"] == doc["hooks"]["UserPromptSubmit"]
    assert mine  # (the user's handler, as they wrote it, is what stays)


@pytest.mark.parametrize("kind,agent,rel", [("instructions", "claude", ".claude/CLAUDE.md"),
                                            ("instructions", "gemini", ".gemini/GEMINI.md")])
def test_a_file_of_lone_carriage_returns_gets_its_last_byte_back(home, kind, agent, rel):
    """(TOML has no lone CR line ends: such a config.toml is refused, not edited.)"""
    path = home / rel
    mine = b"# old mac\rline2\r"
    path.write_bytes(mine)
    inst.run(kind, agent)
    inst.run(kind, agent, uninstall=True)
    assert path.read_bytes() == mine


def test_a_skill_file_with_our_mark_but_no_record_is_ours_only_as_this_release_writes_it(home):
    """With no record of what install wrote (a data dir made anew), a SKILL.md that carries our mark but says more
    is left (it may hold the user's lines); one that is this release's text is ours."""
    skill = next(p for name, p in inst.skill_targets("claude"))
    skill.parent.mkdir(parents=True)
    mine = inst.skill_text() + "\nAlways pass --project.\n"
    skill.write_text(mine)
    for uninstall in (False, True):
        inst.run("skill", "claude", uninstall=uninstall)
        assert skill.read_text() == mine
    skill.write_text(inst.skill_text())
    inst.run("skill", "claude", uninstall=True)
    assert not skill.exists()


def test_changes_of_the_users_to_our_codex_table_or_skill_are_kept(home):
    """A key added to our ``[mcp_servers.backscroll]`` table, or a line to our SKILL.md, makes it the user's too: a
    reinstall leaves it and says so, and uninstall leaves it (their bytes) and says so."""
    path = home / ".codex" / "config.toml"
    path.write_text("model = 'o3'\n")
    inst.run("mcp", "codex")
    edited = path.read_text() + "tool_timeout_sec = 120\n\n[mcp_servers.backscroll.env]\nX = \"mine\"\n"
    path.write_text(edited)
    for uninstall in (False, True):
        changes = inst.run("mcp", "codex", uninstall=uninstall)
        assert path.read_text() == edited and any("changes of yours" in n for c in changes for n in c.notes)
    skill = next(p for name, p in inst.skill_targets("claude"))
    inst.run("skill", "claude")
    inst.run("skill", "claude")  # (a reinstall of what it wrote is no edit)
    mine = skill.read_text() + "\nAlways pass --project.\n"
    skill.write_text(mine)
    for uninstall in (False, True):
        changes = inst.run("skill", "claude", uninstall=uninstall)
        assert skill.read_text() == mine and any("changes of yours" in n for c in changes for n in c.notes)
    said = cli("skill", "--agent", "claude", "--uninstall").output
    assert "holds changes of yours; it is left as it is" in said and "no backscroll entry" not in said
    inst.run("skill", "claude")  # (an uninstall that left the edited skill does not make it ours again)
    assert skill.read_text() == mine
    said = cli("mcp", "--agent", "codex", "--uninstall").output
    assert "holds changes of yours; it is left as it is" in said and path.read_text() == edited
    skill.write_text(inst.skill_text())
    inst.run("skill", "claude", uninstall=True)
    assert not skill.exists()


@pytest.mark.parametrize("kind,agent,rel", [*JSON_TARGETS, ("instructions", "claude", ".claude/CLAUDE.md")])
def test_a_link_to_a_file_not_made_yet_stays_a_link_and_its_target_goes(home, kind, agent, rel):
    """A dotfiles link whose target does not exist yet: install creates the target; uninstall deletes that file,
    not the user's link."""
    path = home / rel
    target = home / "dotfiles" / path.name
    target.parent.mkdir(exist_ok=True)
    path.symlink_to(target)
    inst.run(kind, agent)
    assert path.is_symlink() and target.exists()
    inst.run(kind, agent, uninstall=True)
    assert path.is_symlink() and os.readlink(path) == str(target) and not target.exists()


@pytest.mark.parametrize("mine", ['[mcp_servers."backscroll"]\ncommand = "backscroll"\nargs = ["mcp"]\n',
                                  'mcp_servers = { backscroll = { command = "backscroll", args = ["mcp"] } }\n'])
def test_a_codex_server_of_the_users_in_another_spelling_is_theirs(home, mine):
    path = home / ".codex" / "config.toml"
    path.write_text(mine)
    changes = inst.run("mcp", "codex")
    assert path.read_text() == mine and any("of your own" in n for c in changes for n in c.notes)


def test_uninstall_leaves_a_file_it_cannot_read_when_nothing_of_ours_is_there(home):
    path = home / ".claude" / "settings.json"
    path.write_text('{\n  // my settings\n  "theme": "dark",\n}\n')
    assert all(not c.changed for c in inst.run("hooks", "claude", uninstall=True))
    assert path.read_text() == '{\n  // my settings\n  "theme": "dark",\n}\n'


def test_uninstall_from_another_data_dir_says_it_had_no_record(home, backscroll_home, monkeypatch):
    inst.run("hooks", "claude")
    monkeypatch.setenv("BACKSCROLL_HOME", str(backscroll_home.root / "elsewhere"))
    changes = inst.run("hooks", "claude", uninstall=True)
    assert any(c.changed for c in changes)
    assert any("no record of installing it" in n for c in changes for n in c.notes)
    assert "backscroll hook" not in (home / ".claude" / "settings.json").read_text()
