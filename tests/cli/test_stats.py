"""`backscroll stats`: sessions and records per agent, project and month."""

import json

from typer.testing import CliRunner

from backscroll.cli.app import app


def test_stats_counts_sessions_and_records_per_agent_project_and_month(session_builder, backscroll_index):
    session_builder.claude(project="shop", start="2026-10-01T09:00:00Z").user("a").assistant("b").user("c")
    session_builder.claude(project="shop", start="2026-11-02T09:00:00Z").user("d").assistant("e")
    c = session_builder.codex(project="pay", start="2026-11-03T09:00:00Z")
    c.user("f")
    c.search_echo("anything", "output")  # echoes are not counted
    backscroll_index(embed=False)
    r = CliRunner().invoke(app, ["stats", "--json", "--no-sync"])
    data = json.loads(r.stdout)
    assert data["agent"] == [{"agent": "claude", "sessions": 2, "records": 5},
                             {"agent": "codex", "sessions": 1, "records": 1}]
    assert data["project"][0] == {"project": "shop", "sessions": 2, "records": 5}
    assert [(m["month"], m["sessions"]) for m in data["month"]] == [("2026-11", 2), ("2026-10", 1)]
    since = json.loads(CliRunner().invoke(app, ["stats", "--json", "--no-sync", "--since", "2026-11-01"]).stdout)
    assert [m["month"] for m in since["month"]] == ["2026-11"]
    until = json.loads(CliRunner().invoke(app, ["stats", "--json", "--no-sync", "--until", "2026-10"]).stdout)
    assert [(m["month"], m["records"]) for m in until["month"]] == [("2026-10", 3)], "a month includes its days"
    window = json.loads(CliRunner().invoke(app, ["stats", "--json", "--no-sync", "--since", "2026-11-03",
                                                 "--until", "2026-11-03"]).stdout)
    assert window["agent"] == [{"agent": "codex", "sessions": 1, "records": 1}], "one day: its own records"
    human = CliRunner().invoke(app, ["stats", "--no-sync"]).stdout
    assert "claude" in human and "█" in human
    later = CliRunner().invoke(app, ["stats", "--no-sync", "--since", "2040-01-01"])
    assert later.exit_code == 0 and "Nothing recorded since 2040-01-01" in later.stdout, "not 'nothing indexed'"
    before = CliRunner().invoke(app, ["stats", "--no-sync", "--until", "2020-01"])
    assert before.exit_code == 0 and "Nothing recorded up to 2020-01." in before.stdout


def test_stats_on_an_empty_home_says_what_to_do(backscroll_home):
    r = CliRunner().invoke(app, ["stats", "--no-sync"])
    assert r.exit_code == 3 and "backscroll index" in r.stderr, r.stderr


def test_a_session_without_a_project_is_named_as_list_and_status_name_it(capsys):
    """`stats` said `(no project)` where `list` and `status` say `-`."""
    from backscroll.cli.stats import _print

    _print({"agent": [("claude", 2, 5)], "project": [("shop", 1, 3), (None, 1, 2)], "month": [("2026-11", 2, 5)]},
           color=False)
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["-", "1", "2"] in [r[:3] for r in rows] and ["(no", "project)"] not in [r[:2] for r in rows]
