"""What the README promises, said where a user reads it: the defaults in --help, and messages that name the real
problem."""


import json

from typer.testing import CliRunner

from backscroll.cli.app import app


def cli(*args, **kw):
    return CliRunner().invoke(app, [str(a) for a in args], **kw)


def test_help_states_the_defaults_the_readme_documents(backscroll_home):
    search = cli("search", "--help", env={"COLUMNS": "200"}, terminal_width=200).stdout
    show = cli("show", "--help", env={"COLUMNS": "200"}, terminal_width=200).stdout
    assert "Both by default (hybrid)." in search
    assert "Records shown before and after a record (3)." in show
