"""Projects people recognise (issue #36): a session's project is its repository, not its cwd's last folder."""

import json

from helpers import rows
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest.projects import folder_name, main_repository, remote_name


def test_names_from_remotes_worktree_files_and_folders():
    assert remote_name("git@github.com:team/pomodoro.git") == "pomodoro"
    assert remote_name("https://github.com/team/pomodoro/") == "pomodoro"
    assert remote_name("ssh://git@host:2222/srv/git/pomodoro.git") == "pomodoro"
    assert main_repository("gitdir: /src/pomodoro/.git/worktrees/feature-x\n", "/src/wt/feature-x") == "/src/pomodoro"
    assert main_repository("gitdir: ../pomodoro/.git/worktrees/fix\n", "/src/fix") == "/src/pomodoro"
    assert main_repository("gitdir: /srv/pomodoro.git/worktrees/x", "/w/x") == "/srv/pomodoro"
    assert main_repository("gitdir: ../.git/modules/vendor-lib", "/src/app/vendor-lib") is None  # a submodule
    assert folder_name("C:\\Users\\dev\\pomodoro\\") == "pomodoro" and folder_name("/") == "/"


def test_sessions_in_subfolders_and_worktrees_of_one_repository_are_one_project(
        backscroll_home, session_builder, backscroll_index, tmp_path):
    repo = tmp_path / "src" / "pomodoro"
    (repo / ".git" / "worktrees" / "timer-fix").mkdir(parents=True)
    (repo / "claude").mkdir()
    worktree = tmp_path / "src" / "pomodoro-timer-fix"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {repo}/.git/worktrees/timer-fix\n")
    lonely = tmp_path / "scratch" / "notes"
    lonely.mkdir(parents=True)
    session_builder.claude(cwd=str(repo / "claude")).user("which timer library for pomodoro?")
    session_builder.claude(cwd=str(worktree)).user("fix the pause button of the timer")
    session_builder.claude(cwd=str(lonely)).user("a scratch note")
    session_builder.claude(cwd="/gone/elsewhere/api").user("a checkout that is no longer on this disk")
    backscroll_index(embed=False)
    got = {(r["cwd"], r["project"]) for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert got == {(str(repo / "claude"), "pomodoro"), (str(worktree), "pomodoro"), (str(lonely), "notes"),
                   ("/gone/elsewhere/api", "api")}
    assert {r["project"] for r in rows(backscroll_home)} == {"pomodoro", "notes", "api"}


def test_a_remote_the_codex_log_records_names_the_project(backscroll_home, backscroll_index):
    path = backscroll_home.codex_sessions / "2026" / "03" / "01" / (
        "rollout-2026-03-01T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl")
    path.parent.mkdir(parents=True)
    lines = [{"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta", "payload": {
        "id": "0199a213-81c0-7800-8aa1-bbab2a035a53", "timestamp": "2026-03-01T10:00:00Z", "cwd": "/home/dev/codex",
        "git": {"branch": "main", "repository_url": "git@github.com:team/pomodoro.git"}}},
        {"timestamp": "2026-03-01T10:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "add a long break"}]}}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    backscroll_index(embed=False)
    assert [(r["project"], r["cwd"]) for r in rows(backscroll_home, "SELECT * FROM sessions")] == [
        ("pomodoro", "/home/dev/codex")]


def test_project_filter_takes_a_path_or_a_part_of_the_name(backscroll_home, session_builder, backscroll_index,
                                                           tmp_path, monkeypatch):
    repo = tmp_path / "src" / "pomodoro-app"
    (repo / ".git").mkdir(parents=True)
    (repo / "web").mkdir()
    session_builder.claude(cwd=str(repo / "web")).user("the timer ring sound is too loud")
    session_builder.claude(project="billing").user("the invoice timer ring")
    backscroll_index(embed=False)
    from helpers import cli_env

    runner = CliRunner()
    monkeypatch.chdir(repo / "web")
    for given in (".", str(repo), "doro-a", "POMODORO"):
        r = runner.invoke(app, ["search", "timer ring", "--json", "--mode", "lexical", "--no-sync",
                                "--project", given], env=cli_env(backscroll_home))
        assert r.exit_code == 0, (given, r.output)
        assert {h["project"] for h in json.loads(r.stdout)["results"]} == {"pomodoro-app"}, given


def test_a_secret_in_a_recorded_remote_never_names_a_project(backscroll_home, backscroll_index):
    """The remote URL comes from the session log (hostile text): it is redacted before it names anything."""
    token = "ghp_" + "R8kM2vXq9LtY4wZp7NcB3hJd6FsA1uGe5TnQ"
    path = backscroll_home.codex_sessions / "2026" / "03" / "02" / (
        "rollout-2026-03-02T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a54.jsonl")
    path.parent.mkdir(parents=True)
    lines = [{"timestamp": "2026-03-02T10:00:00Z", "type": "session_meta", "payload": {
        "id": "0199a213-81c0-7800-8aa1-bbab2a035a54", "timestamp": "2026-03-02T10:00:00Z", "cwd": "/home/dev/app",
        "git": {"branch": "main", "repository_url": f"https://github.com/team/{token}"}}},
        {"timestamp": "2026-03-02T10:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "add a long break"}]}}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    backscroll_index(embed=False)
    projects = {r["project"] for r in rows(backscroll_home)} | {
        r["project"] for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert projects and not any(token in (p or "") for p in projects), projects
