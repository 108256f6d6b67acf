"""Issue #18, a daily tool (the rest): config typos warn, an unknown --source agent is a usage error,
status tells coverage, a running index, the last run and its paths on a damaged store, more echo
forms, eval --help documents the query file, the first search shows its indexing, the demo explains
itself."""


import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import TESTS, cli_env, run_cli, run_tty
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest import echo as classify

ROOT = TESTS.parent


def cli(*args, **kw):
    return CliRunner().invoke(app, [str(a) for a in args], **kw)


def error_of(stderr: str) -> dict:
    return json.loads(stderr.strip().splitlines()[-1])["error"]


@pytest.fixture
def small(session_builder, backscroll_home):
    s = session_builder.claude(project="acme-api")
    s.user("why is the cart endpoint slow?")
    s.assistant("the cart endpoint runs an N+1 query over the line items; prefetch_related fixes it")
    s.tool("pytest -q tests/test_cart.py", "3 passed in 0.41s")
    return backscroll_home


# -- 1. unknown config keys warn ------------------------------------------------------------------

def test_a_misspelt_config_key_warns_on_stderr_and_suggests_the_known_one(small):
    (small.data).mkdir(parents=True, exist_ok=True)
    (small.data / "config.toml").write_text('embde = false\n[roots]\nclaud = "/nowhere"\n'
                                            '[[sources]]\npath = "/tmp"\nagnet = "codex"\n')
    r = run_cli(small, "status", "--json")
    assert r.returncode == 0, r.stderr
    assert "unknown key 'embde'" in r.stderr and "did you mean 'embed'?" in r.stderr
    assert "known: embed, background, redact, roots, sources" in r.stderr
    assert "unknown key 'claud' in [roots]" in r.stderr and "did you mean 'claude'?" in r.stderr
    assert "unknown key 'agnet' in [[sources]]" in r.stderr and "did you mean 'agent'?" in r.stderr
    assert len(json.loads(r.stdout)["config_warnings"]) == 3
    assert json.loads(r.stdout)["settings"]["embed"] == {"value": True, "from": "default"}  # still ignored


def test_a_config_value_of_a_kind_nothing_reads_warns_and_is_ignored(small):
    small.data.mkdir(parents=True, exist_ok=True)
    (small.data / "config.toml").write_text('embed = "maybe"\nredact = "off"\nbackground = 0\nroots = "claude codex"\n'
                                            'sources = "/"\n[archive]\nurl = 5\n')
    r = run_cli(small, "status", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["config_warnings"]) == 4 and "embed = 'maybe' is neither true nor false" in r.stderr
    assert doc["settings"]["embed"] == {"value": True, "from": "default"}
    assert doc["settings"]["redact"] == {"value": False, "from": "config"}
    assert doc["settings"]["background"] == {"value": False, "from": "config"}  # (a TOML 0, as ever)
    assert all(root["from"] != "config" for root in doc["roots"])  # (not "/", nor a root per character)


@pytest.mark.parametrize("name", ["BACKSCROLL_EMBED", "BACKSCROLL_REDACT", "BACKSCROLL_BACKGROUND",
                                  "BACKSCROLL_PROGRESS"])
def test_a_switch_in_the_environment_set_to_neither_on_nor_off_warns_and_is_ignored(small, name):
    """``BACKSCROLL_REDACT=disable`` silently kept redaction on: a value nothing reads warns, as in the config file."""
    small.data.mkdir(parents=True, exist_ok=True)
    (small.data / "config.toml").write_text("embed = false\nredact = false\nbackground = false\n")
    r = run_cli(small, "status", "--json", env=cli_env(small, **{name: "disable"}))
    assert r.returncode == 0, r.stderr
    said = f"${name}='disable' is neither on nor off (ignored"
    assert f"warning: {said}" in r.stderr and [w for w in json.loads(r.stdout)["config_warnings"] if said in w]
    setting = json.loads(r.stdout)["settings"].get(name.removeprefix("BACKSCROLL_").lower())
    assert setting in (None, {"value": False, "from": "config"}), "the config file's value stands"
    r = run_cli(small, "status", "--json", env=cli_env(small, **{name: "On "}))
    assert "warning" not in r.stderr and json.loads(r.stdout)["config_warnings"] == [], r.stderr


def test_a_config_file_named_by_the_environment_that_does_not_exist_warns(small, tmp_path):
    missing = tmp_path / "nonexist.toml"
    r = run_cli(small, "status", env=cli_env(small, BACKSCROLL_CONFIG=str(missing)))
    assert r.returncode == 0 and f"warning: $BACKSCROLL_CONFIG names {missing}, which does not exist" in r.stderr
    (tmp_path / "there.toml").write_text("embed = false\n")
    r = run_cli(small, "status", env=cli_env(small, BACKSCROLL_CONFIG=str(tmp_path / "there.toml")))
    assert "warning" not in r.stderr, r.stderr


def test_a_relative_path_in_the_config_file_is_from_its_folder(small, tmp_path):
    small.data.mkdir(parents=True, exist_ok=True)
    (small.data / "config.toml").write_text('[roots]\nclaude = ["old/projects", 3]\n[[sources]]\npath = "more"\n')
    r = run_cli(small, "status", "--json", cwd=tmp_path)
    doc = json.loads(r.stdout)
    paths = {root["path"] for root in doc["roots"]}
    assert {str(small.data / "old" / "projects"), str(small.data / "more")} <= paths, paths
    assert any("[roots] claude is not a path" in w for w in doc["config_warnings"])


def test_push_to_default_is_the_configured_archive_as_search_archive_default_is(small):
    from backscroll.team.push import settings

    env = {"BACKSCROLL_ARCHIVE_URL": "postgresql://alice@db.example.com/team"}
    assert settings(small.config(), "default", env=env)[0] == "postgresql://alice@db.example.com/team"


def test_an_archive_asked_for_and_never_set_up_is_the_archive_kind_the_readme_gives(small):
    env = {k: v for k, v in cli_env(small).items() if k != "BACKSCROLL_ARCHIVE_URL"}
    r = run_cli(small, "search", "anything", "--archive", "default", "--json", env=env)
    assert r.returncode == 6, r.stderr
    assert json.loads(r.stderr)["error"]["kind"] == "archive"
    r = run_cli(small, "push", env=env)
    assert r.returncode == 6 and "no team archive given" in r.stderr


@pytest.mark.parametrize("url", ["postgresql://alice:Zq8sW2xPl9Kd@db.example.com/team",
                                 "host=db user=alice password=Zq8sW2xPl9Kd dbname=team"])
def test_a_password_in_the_configured_archive_url_warns_without_showing_it(small, url):
    (small.data).mkdir(parents=True, exist_ok=True)
    (small.data / "config.toml").write_text(f'[archive]\nurl = "{url}"\n')
    r = run_cli(small, "status", "--json")
    assert "[archive] url holds a password: keep it in ~/.pgpass" in r.stderr and "Zq8sW2xPl9Kd" not in r.stderr
    assert len(json.loads(r.stdout)["config_warnings"]) == 1
    (small.data / "config.toml").write_text('[archive]\nurl = "postgresql://alice@db.example.com/team"\n')
    assert "password" not in run_cli(small, "status").stderr


def test_a_valid_config_file_warns_about_nothing(small):
    small.data.mkdir(parents=True, exist_ok=True)
    (small.data / "config.toml").write_text('embed = false\nredact = true\n[roots]\nclaude = "/x"\n'
                                            '[[sources]]\npath = "/tmp"\nagent = "codex"\n')
    r = run_cli(small, "status", "--json")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr


def test_a_command_that_resolves_the_config_twice_warns_once(small, backscroll_index):
    backscroll_index(embed=False)
    (small.data / "config.toml").write_text("embde = false\n")
    r = run_cli(small, "list", "--no-sync")  # list resolves the config for the page and the total
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("unknown key 'embde'") == 1


# -- 2. an unknown agent prefix in --source -------------------------------------------------------

def test_an_unknown_agent_prefix_is_a_usage_error_listing_the_registered_agents(small):
    from backscroll.ingest.sources import AGENTS

    r = run_cli(small, "index", "--source", "nosuchagent:/tmp", "--no-embed")
    assert r.returncode == 2, r.stderr
    assert "unknown agent 'nosuchagent'" in r.stderr and "no such file" not in r.stderr
    assert ", ".join(AGENTS) in r.stderr
    r = run_cli(small, "index", "--source", "cluade:/tmp", "--no-embed", "--json")
    assert r.returncode == 2
    err = error_of(r.stderr)
    assert err["kind"] == "usage" and "did you mean claude:/tmp?" in err["hint"]


def test_a_registered_agent_prefix_and_a_path_with_a_colon_still_work(small, tmp_path):
    odd = tmp_path / "back:up"  # a real directory whose name holds a colon is a path, not an agent
    odd.mkdir()
    r = run_cli(small, "index", "--source", f"codex:{tmp_path}", "--source", str(odd), "--no-embed")
    assert r.returncode == 0, r.stderr
    r = run_cli(small, "index", "--source", f"cursor:{tmp_path}", "--no-embed")  # cursor is registered
    assert r.returncode == 0, r.stderr


# -- 3. status: coverage, a running index, the last run, a damaged store --------------------------

def test_status_shows_embedding_coverage_in_words_and_json(small, backscroll_index):
    backscroll_index(embed=False)
    r = run_cli(small, "status", env=cli_env(small, COLUMNS="200"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"embedded 0 / 2 prose records — run backscroll embed", r.stdout), r.stdout
    doc = json.loads(run_cli(small, "status", "--json").stdout)
    # (absent values are null, never left out: a worker that never ran, another agent's retention, a path's origin)
    assert doc["embeddings"] == {"prose_records": 2, "embedded": 0, "pending": 2, "worker": None, "foreground": False}
    assert doc["agents"]["codex"]["gone_from_disk"] is None and doc["agents"]["codex"]["agent_keeps_days"] is None
    assert doc["paths"]["store"] == {"path": str(small.data / "backscroll.db"), "from": None, "exists": None}
    assert run_cli(small, "embed").returncode == 0
    doc = json.loads(run_cli(small, "status", "--json").stdout)
    assert doc["embeddings"] == {"prose_records": 2, "embedded": 2, "pending": 0, "worker": None, "foreground": False}
    r = run_cli(small, "status")
    assert "embedded 2 / 2 prose records" in r.stdout and "run backscroll embed" not in r.stdout


def test_status_says_indexing_in_progress_while_the_writer_lock_is_held(small, backscroll_index):
    from backscroll.store.lock import writer_lock

    backscroll_index(embed=False)
    cfg = small.config()
    assert json.loads(run_cli(small, "status", "--json").stdout)["indexing"] is False
    with writer_lock(cfg, 0.0) as acquired:
        assert acquired
        doc = json.loads(run_cli(small, "status", "--json").stdout)
        human = run_cli(small, "status").stdout
    assert doc["indexing"] is True and doc["records"] > 0
    assert "indexing in progress" in human
    assert "indexing in progress" not in run_cli(small, "status").stdout


def test_status_on_a_fresh_home_creates_no_lock_file(small):
    doc = json.loads(run_cli(small, "status", "--json").stdout)
    assert doc["indexing"] is False and not small.config().lock_path.exists()


def test_every_index_run_records_its_time_even_when_nothing_changed(small, backscroll_index):
    from backscroll.store.db import Store

    backscroll_index(embed=False)
    doc = json.loads(run_cli(small, "status", "--json").stdout)
    first_run, first_change = doc["last_index_run"], doc["last_sync"]
    assert first_run and first_change
    store = Store.open(small.config().db_path)
    store.set_meta("last_index_run", "2020-01-01T00:00:00.000Z")  # as if that run were long ago
    store.close()
    assert run_cli(small, "index", "--no-embed").returncode == 0  # nothing new to read
    doc = json.loads(run_cli(small, "status", "--json").stdout)
    assert doc["last_index_run"] > "2020-01-01T00:00:00.000Z" and doc["last_sync"] == first_change
    shown = run_cli(small, "status").stdout
    assert "new session lines last looked for 20" in shown and "(by an index or a search), last read 20" in shown, \
        "not the newest record's time; and not taken for the last `backscroll index`, a search's sync moves it too"


def test_status_prints_its_paths_before_the_corrupt_store_error(small):
    small.data.mkdir(parents=True, exist_ok=True)
    db = small.config().db_path
    db.write_bytes(b"this is not a database\x00" * 2000)
    r = run_cli(small, "status")
    assert r.returncode == 1
    assert "Paths" in r.stdout and str(db) in r.stdout and "Session roots" in r.stdout
    assert "damaged" in r.stderr and "hint:" in r.stderr
    r = run_cli(small, "status", "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["paths"]["store"]["path"] == str(db) and doc["store_error"]["kind"] == "corrupt-store"
    assert error_of(r.stderr)["kind"] == "corrupt-store"
    assert db.read_bytes() == b"this is not a database\x00" * 2000  # left as it was


# -- 4. more echo forms ---------------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    "for q in a b; do backscroll search $q; done",
    "for q in 'job queue' 'skip locked'\ndo\n  backscroll search \"$q\" --limit 3\ndone",
    "while read id; do backscroll show \"$id\"; done < ids.txt",
    "if true; then backscroll search x; fi",
    "{ backscroll search x; }",
    "xargs -I{} backscroll search {}",
    "printf 'a\\nb\\n' | xargs -I {} backscroll search {}",
    "echo queue | xargs backscroll search",
    "cat ids | xargs -n 1 -P 4 backscroll show",
    "watch backscroll search job queue",
    "watch -n 5 backscroll search job queue",
    "watch -n 5 'backscroll search job queue'",
    "$(which backscroll) search job queue",
    "`which backscroll` search job queue",
    "$(command -v backscroll) show abc#3",
])
def test_more_retrieval_forms_are_echoes(command):
    assert classify.is_query_echo(command), command


@pytest.mark.parametrize("command", [
    'echo "for q in x; do backscroll search"',
    'grep "xargs backscroll search" notes.md',
    'echo "$(which backscroll) search x"',
    "watch backscroll status",
    "xargs backscroll index",
    "which backscroll",
    "for f in *.md; do grep -l backscroll $f; done",
    "watch -n 5 ls",
])
def test_look_alikes_stay_non_echoes(command):
    assert not classify.is_query_echo(command), command


def test_the_new_rules_bumped_the_classifier_version_and_reclassify_a_store(session_builder, backscroll_index,
                                                                             backscroll_home):
    from backscroll.store.db import Store

    assert classify.VERSION >= 3
    s = session_builder.claude(project="acme-api")
    s.user("what did we decide about the queue?")
    s.tool("for q in queue locks; do backscroll search $q; done", "1. we chose postgres for the queue")
    backscroll_index(embed=False)
    store = Store.open(backscroll_home.config().db_path)
    try:
        assert store.conn.execute("SELECT count(*) FROM records WHERE is_echo = 1").fetchone()[0] == 2
        store.set_meta("classifier_version", "2")
        store.conn.execute("UPDATE records SET is_echo = 0")
    finally:
        store.close()
    backscroll_index(embed=False)
    store = Store.open(backscroll_home.config().db_path)
    try:
        assert store.conn.execute("SELECT count(*) FROM records WHERE is_echo = 1").fetchone()[0] == 2
    finally:
        store.close()


# -- 5. eval --help -------------------------------------------------------------------------------

def test_eval_help_shows_the_argument_and_the_query_file_format():
    r = cli("eval", "--help", env={"COLUMNS": "120"})
    assert r.exit_code == 0
    out = r.stdout
    assert "QUERIES.toml" in out
    for needle in ("[corpus]", "[gate]", "[[query]]", "now =", "text =", "expected =", "category =",
                   "session =", "ratchet", "slack", "floors.", "allow_also_matching", "the file's [gate] fails"):
        assert needle in out, needle


def test_the_keys_eval_help_names_are_the_keys_evaluate_reads():
    from backscroll.eval_file import QUERY_KEYS

    out = cli("eval", "--help", env={"COLUMNS": "200"}).stdout
    for key in QUERY_KEYS:
        assert key in out, key


@pytest.mark.parametrize(("content", "loaders"), [
    (b"query = 5\n", ("queries",)), (b'[gate]\nslack = "x"\n[[query]]\ntext = "a"\nexpected = "b"\n', ("gate",)),
    (b"\xff\xfe junk", ("gate", "queries")), (None, ("gate", "queries"))])
def test_a_query_file_eval_cannot_read_is_a_usage_error(tmp_path, content, loaders):
    from backscroll.errors import UsageError
    from backscroll.eval_file import load_gate, load_queries

    path = tmp_path / "q.toml"
    if content is None:
        path.mkdir()  # (a folder given for the file)
    else:
        path.write_bytes(content)
    for name in loaders:
        with pytest.raises(UsageError):
            {"gate": load_gate, "queries": load_queries}[name](path)


Q = '[[query]]\ntext = "a"\nexpected = "b"\n'


@pytest.mark.parametrize(("content", "says"), [
    ("[gates]\nslack = 0.1\n" + Q, "unknown table or key gates"),
    ("[gate]\nfloor.overall = { recall = 1.0 }\n" + Q, "[gate] takes floors, ratchet, slack, not floor"),
    ('[gate]\nratchet = "q1"\n' + Q, "ratchet is a list of query ids"),
    ("[gate]\nfloors.overall = { recal = 1.0 }\n" + Q, "floors.overall gives shares from 0 to 1"),
    ("[gate]\nfloors.overall = { recall = 80 }\n" + Q, "floors.overall gives shares from 0 to 1"),
    ("[gate]\nfloors = [1]\n" + Q, "[gate] floors is a table"),
    ('[corpora]\nsources = ["claude:x"]\n' + Q, "unknown table or key corpora"),
    ('[corpus]\nsource = ["claude:x"]\n' + Q, "[corpus] takes one key, sources"),
    ('[corpus]\nsources = "claude:/"\n' + Q, "[corpus] takes one key, sources"),
    ("[corpus]\nsources = []\n" + Q, "[corpus] takes one key, sources"),
    ('[[query]]\nid = "a"\ntext = "x"\nexpected = "y"\n[[query]]\nid = "a"\ntext = "z"\nexpected = "w"\n',
     "query ids given twice: a"),
    (Q + 'nothing = "false"\n', "query 1: nothing must be true or false"),
    (Q + "category = 5\n", "query 1: category must be text"),
    (Q + 'category = "Overall"\n', 'query 1: category "overall" is the row of every query'),
    ('[[query]]\ntext = "a"\nexpected = " "\n', "query 1: expected is blank"),
    ('[[query]]\ntext = "a"\nwindow = "2026-10-28..2026-10-01"\n', "the first day first"),
    ('[query]\ntext = "a"\n', "each query is a [[query]] table"),
])
def test_a_query_file_a_ci_would_misread_is_refused_saying_what_is_wrong(tmp_path, content, says):
    """A misspelt [gate] passed --gate, a misspelt [corpus] ran against the user's own history, a string for
    sources walked /, a duplicate id hid a lost ratchet, "false" read as true, and a number for a category was an
    internal error."""
    from backscroll.errors import UsageError
    from backscroll.eval_file import load_gate, load_queries

    path = tmp_path / "q.toml"
    path.write_text(content)
    with pytest.raises(UsageError) as err:
        load_gate(path)
        load_queries(path)
    assert says in err.value.message, err.value.message


def test_eval_refuses_gate_without_a_gate_and_reads_a_bom(tmp_path, backscroll_home):
    (tmp_path / "q.toml").write_text(Q)
    r = cli("eval", str(tmp_path / "q.toml"), "--gate")
    assert r.exit_code == 2 and "has no [gate] table" in r.stderr, r.stderr
    from backscroll.errors import UsageError
    from backscroll.eval_file import load_queries

    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + Q.encode())
    assert load_queries(tmp_path / "bom.toml")[0][0].text == "a"
    (tmp_path / "none.toml").write_text('[corpus]\nsources = ["claude:gone"]\n' + Q)
    with pytest.raises(UsageError, match="no corpus source exists"):
        load_queries(tmp_path / "none.toml")


def test_an_answer_found_under_a_wrong_agent_hint_ranks_its_session_where_it_was_found(session_builder,
                                                                                     backscroll_index, backscroll_home,
                                                                                     tmp_path):
    """The answer in ``also_matching`` (a guessed ``--agent``): its session ranks within that list too, so session
    hit@1 cannot read 0 where hit@1 reads 1."""
    from backscroll.evaluate import run_eval

    s = session_builder.claude(project="shop")
    s.user("the cart endpoint is slow").assistant("prefetch_related lines__variant__product fixes the cart query")
    session_builder.codex(project="shop").user("rename the deploy script").assistant("renamed to deploy.sh")
    backscroll_index(embed=False)
    path = tmp_path / "q.toml"
    path.write_text('[[query]]\ntext = "prefetch_related cart"\nexpected = "lines__variant__product"\n'
                    'agent = "codex"\nmode = "lexical"\nallow_also_matching = true\n')
    report = run_eval(path, home=backscroll_home.data)
    [outcome] = report.outcomes
    assert (outcome.where, outcome.rank, outcome.session_rank) == ("also_matching", 1, 1)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_to_a_full_disk_is_named_not_an_internal_error(small):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "backscroll", "list", "--json"], env=cli_env(small), stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    assert json.loads(r.stderr)["error"]["kind"] == "disk-full", r.stderr


# -- 6. the first search shows its indexing -------------------------------------------------------

def test_the_first_search_on_a_terminal_shows_the_index_progress(small):
    status, out = run_tty(small, "search", "cart endpoint", "--no-pager", columns=100)
    assert status == 0, out
    assert "indexing your sessions first" in out and "reading sessions" in out
    assert "prefetch_related" in out
    status, out = run_tty(small, "search", "cart endpoint", "--no-pager", columns=100)  # indexed now: quiet
    assert status == 0 and "indexing your sessions first" not in out and "reading sessions" not in out


def test_the_first_search_progress_can_be_forced_and_is_off_when_piped(small):
    """Piped, no bars, but one line says why the first search takes a while (it was silent throughout)."""
    r = run_cli(small, "search", "cart endpoint")
    assert r.returncode == 0 and "reading sessions" not in r.stderr
    assert r.stderr.count("indexing your sessions first") == 1, r.stderr
    again = run_cli(small, "search", "cart endpoint")
    assert "indexing your sessions first" not in again.stderr
    other = small.root / "data2"
    env = cli_env(small, BACKSCROLL_HOME=str(other), BACKSCROLL_PROGRESS="1")
    r = run_cli(small, "search", "cart endpoint", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert "reading sessions" in r.stderr and json.loads(r.stdout)["results"]  # stdout stays data


# -- 8. make demo ---------------------------------------------------------------------------------

def _demo_commands() -> list[list[str]]:
    text = (ROOT / "Makefile").read_text()
    demo = text[text.index("\ndemo:"):text.index("\n\n", text.index("\ndemo:"))]
    return [shlex.split(m.group(1)) for m in re.finditer(r"\bbs ((?:index|search|status)[^;]*);", demo + ";")]


def test_the_demo_explains_its_malformed_lines_in_one_sentence():
    text = (ROOT / "Makefile").read_text()
    demo = text[text.index("\ndemo:"):]
    assert re.search(r'echo "# \(The skipped lines are broken on purpose[^"]*\.\)"', demo)


@pytest.mark.slow  # (the real model, as `make demo` runs)
def test_the_demo_shows_echoes_hidden_and_no_unmarked_row_that_quotes_a_search(backscroll_home):
    commands = _demo_commands()
    index = next(c for c in commands if c[0] == "index")
    default, let_in = (next(c for c in commands if c[0] == "search" and ("--include-echoes" in c) == echoes)
                       for echoes in (False, True))
    env = {**cli_env(backscroll_home, NO_COLOR="1"), "BACKSCROLL_EMBEDDER": "minilm"}
    r = subprocess.run([sys.executable, "-m", "backscroll", *index], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    shown = {}
    for name, command in (("default", default), ("let_in", let_in)):
        r = subprocess.run([sys.executable, "-m", "backscroll", *command, "--json"], env=env,
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        shown[name] = json.loads(r.stdout)
    assert shown["default"]["echoes_hidden"] >= 1 and shown["let_in"]["results"][0]["is_echo"]
    for hit in shown["default"]["results"]:
        assert "backscroll search" not in hit["text"] and not hit["is_echo"], hit["text"][:200]


def test_the_demo_status_does_not_call_the_agents_it_just_indexed_not_found(backscroll_home):
    """`make demo` indexes claude and codex with --source, then `status` said they were "not found in
    their default places"."""
    index = next(c for c in _demo_commands() if c[0] == "index")
    env = cli_env(backscroll_home, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "backscroll", *index, "--no-embed"], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([sys.executable, "-m", "backscroll", "status"], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=120).stdout
    fixtures = ROOT / "fixtures"
    assert (f"indexed from paths given with --source: claude ({fixtures / 'claude' / 'projects'}), "
            f"codex ({fixtures / 'codex' / 'sessions' / '2026'})") in out.replace("\n   ", ""), out
    absent = next(line for line in out.splitlines() if "not found in their default places" in line)
    assert "claude" not in absent and "codex" not in absent, absent


def test_the_demo_comments_promise_only_what_it_prints():
    text = (ROOT / "Makefile").read_text()
    assert "unmarked row" not in text[text.index("\ndemo:"):], "the top 8 hold no unmarked row quoting the command"


def test_ages_are_one_form_from_seconds_to_years():
    """The age column mixed "34d ago" with "2026-10-06"."""
    from datetime import UTC, datetime, timedelta

    from backscroll.dates import format_ts, human_age

    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    ages = [human_age(format_ts(now - timedelta(seconds=s)), now=now)
            for s in (30, 600, 7200, 86400 * 3, 86400 * 34, 86400 * 57, 86400 * 400, 86400 * 800)]
    assert ages == ["30s ago", "10min ago", "2h ago", "3d ago", "34d ago", "1mo ago", "13mo ago", "2y ago"]
    assert all(re.fullmatch(r"\d+(s|min|h|d|mo|y) ago", a) for a in ages)


def test_long_lists_say_how_many_more_exist(session_builder, backscroll_home):
    """`status` showed 15 projects and "known projects" in an error 12, cut without a word."""
    for i in range(20):
        session_builder.claude(project=f"proj{i:02d}").user(f"question {i} about the ledger")
    env = cli_env(backscroll_home, NO_COLOR="1")
    assert subprocess.run([sys.executable, "-m", "backscroll", "index", "--no-embed"], env=env,
                          capture_output=True, timeout=120).returncode == 0
    status = subprocess.run([sys.executable, "-m", "backscroll", "status"], env=env, capture_output=True,
                            text=True, timeout=120).stdout
    assert "and 5 more lines (a line per agent and project)" in status, status
    err = subprocess.run([sys.executable, "-m", "backscroll", "search", "ledger", "--project", "nosuch",
                          "--no-sync"], env=env, capture_output=True, text=True, timeout=120).stderr
    assert "and 8 more" in err, err


def test_after_an_interrupted_first_index_the_next_one_is_calm(session_builder, backscroll_home, capsys):
    """Ctrl-C during the first `index` said only "interrupted", and the next run said the lexical index
    "was missing or unreadable", which alarms after a normal interrupt."""
    from backscroll.indexes.lexical import LexicalIndex

    session_builder.claude(project="calm").user("the ledger reconciliation")
    LexicalIndex(backscroll_home.config().index_dir).create()  # what an interrupted first build leaves
    env = cli_env(backscroll_home, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "backscroll", "index", "--no-embed"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "missing or unreadable" not in r.stderr, r.stderr
    from backscroll.cli import common

    with pytest.raises(SystemExit) as stopped:
        common.run(lambda: (_ for _ in ()).throw(KeyboardInterrupt))
    assert stopped.value.code == 130
    assert "interrupted: the next run reads what this one did not save" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:  # an agent asked for JSON: the error document, as for any error
        common.run(lambda: (_ for _ in ()).throw(KeyboardInterrupt), as_json=True)
    assert stopped.value.code == 130
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "interrupted"


def test_status_says_a_first_index_has_not_finished_rather_than_blaming_the_format(session_builder, backscroll_home):
    from backscroll.status_report import collect
    from backscroll.store.db import Store

    session_builder.claude(project="calm").user("the ledger reconciliation")
    cfg = backscroll_home.config()
    Store.open(cfg.db_path).close()  # what a first index killed before its first save leaves
    warnings = collect(cfg).warnings
    assert any("the first `backscroll index` has not finished" in w for w in warnings), warnings
    assert not any("a format this version does not know" in w for w in warnings)


def test_a_misspelled_word_gets_a_did_you_mean_from_the_index(session_builder, backscroll_index, backscroll_search):
    """Misspelled words were noted but never corrected."""
    s = session_builder.claude(project="db")
    s.user("the pgbouncer pool runs out of connections under load")
    s.assistant("Raise default_pool_size in pgbouncer.ini and set server_idle_timeout.")
    backscroll_index(embed=False)
    res = backscroll_search("pgbounser pool size", mode="lexical")  # one edit: searched as corrected (#48)
    assert any('searched for "pgbouncer" instead' in n for n in res.notes), res.notes
    res = backscroll_search("pgbounsr pool size", mode="lexical")  # two: only suggested
    assert any('did you mean "pgbouncer"?' in n for n in res.notes), res.notes
    none = backscroll_search("xyzzyplugh frobnicate", mode="lexical")
    assert not any("did you mean" in n for n in none.notes), none.notes


def test_a_data_dir_that_is_a_file_is_named_as_such(backscroll_home, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a directory\n")
    env = {**cli_env(backscroll_home), "BACKSCROLL_HOME": str(afile)}
    r = subprocess.run([sys.executable, "-m", "backscroll", "status"], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and f"$BACKSCROLL_HOME ({afile}) is a file, not a directory" in r.stderr, r.stderr
    assert "config file" not in r.stderr
    assert afile.read_text() == "not a directory\n"


def test_a_home_directory_that_does_not_exist_is_not_made_for_the_default_data_dir(backscroll_home, tmp_path):
    gone = tmp_path / "nonexistent"
    env = {k: v for k, v in cli_env(backscroll_home, HOME=str(gone)).items()
           if k not in ("BACKSCROLL_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "hello"], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and f"the home directory {gone} does not exist" in r.stderr, r.stderr
    assert "BACKSCROLL_HOME" in r.stderr and not gone.exists()
    r = subprocess.run([sys.executable, "-m", "backscroll", "status", "--json"], capture_output=True, text=True,
                       env={**env, "BACKSCROLL_HOME": str(tmp_path / "data")}, timeout=120)
    assert r.returncode == 0 and not gone.exists(), "a data dir named elsewhere needs no home"


def test_a_source_path_the_agent_named_finds_nothing_in_is_noted_with_whose_it_looks(small):
    import shutil

    claude_dir = small.home.parent / "old-laptop" / "projects"  # (a copy: no agent's own root)
    shutil.copytree(small.home / ".claude" / "projects", claude_dir)
    env = {**cli_env(small), "HOME": str(small.home.parent / "empty-home")}
    r = run_cli(small, "index", "--no-embed", "--source", f"codex:{claude_dir}", env=env)
    assert r.returncode == 0, r.stderr
    assert f"note: no codex session files under {claude_dir}; they look like claude sessions" in r.stderr
    assert "add them to [[sources]]" in r.stderr, "a path given once is not read by later syncs"
    quiet = run_cli(small, "index", "--no-embed", env=env)
    assert "[[sources]]" not in quiet.stderr
    # beside a source that holds sessions, the one that holds none is still named
    both = run_cli(small, "index", "--no-embed", "--source", f"claude:{claude_dir}", "--source",
                   f"codex:{claude_dir}", env=env)
    assert f"note: no codex session files under {claude_dir}; they look like claude sessions" in both.stderr
    assert f"no claude session files under {claude_dir}" not in both.stderr
    # an agent reading --json is told too
    r = run_cli(small, "index", "--no-embed", "--json", "--source", f"codex:{claude_dir}", env=env)
    assert f"no codex session files under {claude_dir}; they look like claude sessions" in " ".join(
        json.loads(r.stdout)["notes"])


def test_an_empty_home_a_config_not_in_utf8_and_a_path_not_in_utf8_are_answered_not_crashed(small, tmp_path):
    here = tmp_path / "here"
    here.mkdir()
    r = run_cli(small, "--home", "", "list", "--json", cwd=here)
    assert r.returncode == 2 and json.loads(r.stderr)["error"]["kind"] == "usage" and not list(here.iterdir())
    bad = tmp_path / "c.toml"
    bad.write_bytes(b"\xff\xfe\x00junk")
    r = run_cli(small, "status", "--json", env={**cli_env(small), "BACKSCROLL_CONFIG": str(bad)})
    assert r.returncode == 2 and "cannot read the config file" in json.loads(r.stderr)["error"]["message"]
    r = run_cli(small, "files", "--json", os.fsdecode(b"caf\xe9.py"))
    assert r.returncode == 0 and json.loads(r.stdout)["path"] == "caf\\xe9.py", r.stdout + r.stderr


def test_status_says_an_index_run_was_cut_short_until_the_next_one_finishes(session_builder, backscroll_home,
                                                                             monkeypatch):
    """A run killed after it had saved some files left `status` as after the run before: nothing said the rest
    was unread."""
    import backscroll
    from backscroll.ingest import sync as syncing
    from backscroll.status_report import collect

    session_builder.claude(project="calm").user("the ledger, first").assistant("done")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    for n in range(3):
        session_builder.claude(project="calm").user(f"the ledger reconciliation, part {n}").assistant("done")
    real, calls = syncing.read_lines, []

    def cut_short(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # (a kill: the files before it were saved)
        return real(*args, **kw)

    monkeypatch.setattr(syncing, "COMMIT_EVERY_RECORDS", 1)
    monkeypatch.setattr(syncing, "read_lines", cut_short)
    with pytest.raises(KeyboardInterrupt):
        backscroll.index(config=cfg, embed=False)
    warnings = collect(cfg).warnings
    assert any("stopped before it had read every session file" in w for w in warnings), warnings
    monkeypatch.setattr(syncing, "read_lines", real)
    backscroll.search("ledger reconciliation", config=cfg, sync=True, mode="lexical")
    assert any("stopped before" in w for w in collect(cfg).warnings), "a search's quick sync reads some files only"
    backscroll.index(config=cfg, embed=False)
    assert not any("stopped before" in w for w in collect(cfg).warnings)


def test_an_option_of_the_query_file_a_search_refuses_names_the_query(session_builder, backscroll_index, tmp_path):
    session_builder.claude(project="shop").user("the cart endpoint is slow").assistant("prefetch the lines")
    backscroll_index(embed=False)
    (tmp_path / "q.toml").write_text('[[query]]\nid = "cart-1"\ntext = "cart"\nexpected = "prefetch"\n'
                                      'role = "assistent"\n')
    r = cli("eval", str(tmp_path / "q.toml"), "--mode", "lexical")
    assert r.exit_code == 2 and "query 'cart-1': unknown role 'assistent'" in r.stderr, r.stderr


def test_an_eval_miss_is_named_by_its_id_and_by_what_its_answer_is(session_builder, backscroll_index, tmp_path):
    session_builder.claude(project="shop").user("the cart endpoint is slow").assistant("prefetch the lines")
    backscroll_index(embed=False)
    (tmp_path / "q.toml").write_text(
        '[[query]]\nid = "cart-1"\ntext = "cart endpoint"\nexpected = "no such answer"\n'
        '[[query]]\nid = "never-1"\ntext = "cart endpoint slow"\nnothing = true\n'
        '[[query]]\nid = "day-1"\ntext = "cart endpoint"\nwindow = "2020-01-01..2020-01-03"\n')
    r = cli("eval", str(tmp_path / "q.toml"), "--mode", "lexical", env={"COLUMNS": "200"})
    assert "cart-1: 'cart endpoint' — expected 'no such answer'" in r.stdout, r.stdout
    assert "never-1: 'cart endpoint slow' — expected no results" in r.stdout
    assert "day-1: 'cart endpoint' — expected a record of 2020-01-01..2020-01-03" in r.stdout
    doc = json.loads(cli("eval", str(tmp_path / "q.toml"), "--mode", "lexical", "--json").stdout)
    assert [m["id"] for m in doc["misses"]] == ["cart-1", "never-1", "day-1"]


def test_status_names_each_place_files_were_read_from_never_the_root_above_them():
    """Files read with ``--source`` from two places far apart: ``/`` holds both, and ``index --source claude:/``
    would crawl the whole disk; each place is named on its own."""
    from backscroll.status_report import _common_folder, _common_folders

    apart = ["/srv/a/.claude/projects/p/1.jsonl", "/home/ana/work/claude/projects/q/2.jsonl",
             "/home/ana/work/claude/projects/r/3.jsonl#sub"]
    assert _common_folders(apart) == {"/home/ana/work/claude/projects": 2, "/srv/a/.claude/projects/p": 1}
    assert _common_folder(apart) is None
    assert _common_folder(apart[1:]) == "/home/ana/work/claude/projects"
    assert _common_folders(["/data/claude/-p-x/1.jsonl", "/data/claude/-p-y/2.jsonl"]) == {"/data/claude": 2}, \
        "a shallow root is one place"
    assert _common_folder(["/home/ana/C#/p/.aider.chat.history.md", "/home/ana/C#/q/.aider.chat.history.md#2"]) \
        == "/home/ana/C#", "a # in a folder's name is no unit's part"
