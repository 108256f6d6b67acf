"""The team archive's password never appears in a message: URLs libpq would misread or cannot read are
refused without being quoted, and what libpq or the server says is cleaned of every part of the URL that
could hold the password (``store/archive_url.py``), on the command line and in the library (which the MCP
tools call)."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli

from backscroll.archive import Backscroll
from backscroll.errors import BackscrollError
from backscroll.store.archive_url import said, where

PASSWORD = "Zq8-sW2x Pl9Kd"  # a space in it, for the conninfo form
SHAPES = {
    "an unescaped @": "postgresql://alice:Zq8@sW2xPl9Kd@db.example.invalid:5432/team",
    "a conninfo value with a space": f"host=db.example.invalid user=alice password={PASSWORD} dbname=team",
    "a bad % escape": "postgresql://alice:Zq8%zzsW2xPl9Kd@db.example.invalid/team",
    "a good URL, an unreachable host": "postgresql://alice:Zq8sW2xPl9Kd@db.example.invalid/team",
}
FRAGMENTS = ("Zq8", "sW2x", "Pl9Kd")


def clean(text: str) -> bool:
    return not any(f in text for f in FRAGMENTS)


@pytest.mark.parametrize("shape", SHAPES)
def test_the_command_line_never_prints_the_archive_password(backscroll_home, shape):
    url = SHAPES[shape]
    for args in (["push", "--to", url], ["search", "anything", "--archive", url, "--json"],
                 ["list", "--archive", url], ["archive", "init", url]):
        r = run_cli(backscroll_home, *args)
        assert r.returncode != 0, (args, r.stdout)
        assert clean(r.stdout + r.stderr), (shape, args, r.stderr)
        assert "Traceback" not in r.stderr
    err = json.loads(run_cli(backscroll_home, "search", "anything", "--archive", url, "--json").stderr)["error"]
    if shape != "a good URL, an unreachable host":
        assert err["kind"] == "usage" and "not shown" in err["message"], err


@pytest.mark.parametrize("shape", SHAPES)
def test_the_library_errors_never_carry_the_archive_password(backscroll_home, shape):
    with pytest.raises(BackscrollError) as caught:
        Backscroll(home=backscroll_home.data).search("anything", archive=SHAPES[shape])
    payload = json.dumps(caught.value.to_dict() if hasattr(caught.value, "to_dict") else
                         {"message": caught.value.message, "hint": caught.value.hint})
    assert clean(payload), payload


def test_where_names_the_place_and_said_hides_every_form_of_the_password():
    assert where("postgresql://alice:Zq8sW2xPl9Kd@db.example.com:5433/team") == "alice@db.example.com:5433/team"
    assert clean(where(SHAPES["an unescaped @"])) and clean(where(SHAPES["a bad % escape"]))
    url = SHAPES["a good URL, an unreachable host"]
    assert said(RuntimeError(f'could not connect to "{url}": password "Zq8sW2xPl9Kd" rejected'), url) \
        == 'could not connect to "[hidden]": password "[hidden]" rejected'
    conninfo = "host=h user=alice password='Zq8 sW2xPl9Kd' dbname=team"
    assert clean(said(RuntimeError(f"bad option in {conninfo}"), conninfo))


@pytest.mark.parametrize("given, says", [("defualt", "or by `default`"), ("mysql://me@db/team", "postgresql://")])
def test_an_archive_named_neither_by_a_postgresql_url_nor_default_says_what_is_taken(given, says):
    from backscroll.errors import UsageError
    from backscroll.store.archive_url import check

    with pytest.raises(UsageError) as err:
        check(given)
    assert says in str(err.value) and "percent-encode" not in (err.value.hint or "")


@pytest.mark.parametrize("shape", SHAPES)
def test_status_names_the_configured_archive_without_its_password(backscroll_home, session_builder, shape):
    session_builder.claude().user("something to index")
    run_cli(backscroll_home, "index")
    (backscroll_home.data / "config.toml").write_text(f"[archive]\nurl = {json.dumps(SHAPES[shape])}\n")
    page = run_cli(backscroll_home, "status")
    assert page.returncode == 0 and "never pushed from this store" in page.stdout, page.stderr
    report = run_cli(backscroll_home, "status", "--json")
    assert json.loads(report.stdout)["archive"]["last_push"] is None
    assert clean(page.stdout + page.stderr + report.stdout + report.stderr)


def test_an_unknown_url_parameter_is_named_and_a_password_never_is():
    from backscroll.errors import UsageError
    from backscroll.store.archive_url import check

    with pytest.raises(UsageError) as err:
        check("postgresql://alice@db.example.com/team?bogus=1")
    assert "parameter PostgreSQL does not know: 'bogus'" in str(err.value)
    for url in ("postgresql://alice:Zq8?sWxPlKd=1@db.example.com/team", "postgresql://alice:Zq8?sWxPlKd=%zz@db/team",
                "host=h user=alice password=Zq8 sWxPlKd"):
        try:
            check(url)
        except UsageError as refused:
            said = f"{refused.message} {refused.hint}"
            assert "sWxPlKd" not in said and "Zq8" not in said, said
