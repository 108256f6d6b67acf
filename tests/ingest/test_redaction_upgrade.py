"""Stores written under older redaction rules: an upgrade redacts again what their gone logs held (text,
titles, index terms, vectors), a push never sends it and replaces what an older release sent, and a read
that cannot redact the store first redacts what it shows. Plus the forms the older rules missed: colour
codes splitting a secret, Doppler tokens.

The older store (``tests/data/old_store/home``) was written by d6ae553 (``tests/data/old_store/build.py``
says how); its session logs are gone, as after an agent's pruning. Every value is fake.
"""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from helpers import TESTS, cli_env, run_cli
from team_archives import fresh_archive

from backscroll.config import resolve
from backscroll.ingest import redact_again
from backscroll.ingest.redact import redact
from backscroll.store.archive_pg import Archive
from backscroll.store.db import Store
from backscroll.store.lock import writer_lock

OLD = TESTS / "data" / "old_store"
DOPPLER = "dp.st.prd.Qm7Xk2Lp9Wz4Rt6Vb8Nc3Hd5Jf1Gs0Ka2Ye4Ui6Qx"
GITHUB = "ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri"
AWS_SECRET = "Tq4Lw8Zr2Xm6Kp0Vb5Nc9Hd3Jf7Gs1Ya4Ue8Ri2"
# The bodies, as any output or index file would hold them (Tantivy keeps terms lowercased).
BODIES = ("Qm7Xk2Lp9Wz4Rt6Vb8Nc3Hd5", "Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2", "Tq4Lw8Zr2Xm6Kp0Vb5Nc9Hd3")
ESC = "\x1b"


def leaked(blob: str | bytes) -> list[str]:
    data = blob.encode() if isinstance(blob, str) else blob
    return [b for b in BODIES if b.encode() in data or b.lower().encode() in data]


class Home:
    def __init__(self, root: Path):
        self.data = root / "data"
        self.home = root / "home"
        self.home.mkdir(parents=True)


@pytest.fixture
def upgraded(tmp_path) -> Home:
    """A copy of the older release's data dir, its logs gone."""
    home = Home(tmp_path)
    shutil.copytree(OLD / "home", home.data)
    return home


def index_terms(data: Path) -> int:
    """How many documents of the lexical index hold a secret's body as a term."""
    from backscroll.indexes.lexical import LexicalIndex
    from backscroll.indexes.lexical_schema import analyze

    lex = LexicalIndex(data / "index")
    assert lex.open_for_read(older=True)
    searcher = lex._opened().searcher()
    terms = [t for secret in (DOPPLER, AWS_SECRET, GITHUB[4:]) for t in analyze(secret) if len(t) > 20]
    return sum(searcher.doc_freq("text", t) for t in terms)


def db_text(home: Home) -> str:
    conn = sqlite3.connect(home.data / "backscroll.db")
    try:
        rows = conn.execute("SELECT text, cwd, tool_name, project FROM records").fetchall()
        rows += conn.execute("SELECT title, cwd, project, '' FROM sessions").fetchall()
        return "\n".join(str(v) for row in rows for v in row)
    finally:
        conn.close()


# -- the rules and their version -----------------------------------------------------------------

def test_the_rules_version_is_bumped_with_the_rules():
    # When this fails, the rules changed: bump ``redact_again.RULES_VERSION`` (stores then redact their records
    # again) and write the new fingerprint here.
    assert (redact_again.RULES_VERSION, redact_again.fingerprint()) == (9, "bc777cc212655f26")


@pytest.mark.parametrize("text", [
    f"{ESC}[32mghp_{ESC}[0m{ESC}[1m{GITHUB[4:]}{ESC}[0m",  # gh auth token, coloured by part
    f"token: {ESC}[32mghp_{ESC}[0m{ESC}[1m{GITHUB[4:]}{ESC}[0m",
    f"aws_secret_access_key = {ESC}[33m{AWS_SECRET}{ESC}[0m",
    f"{ESC}[01;31m{ESC}[KAKIA{ESC}[m{ESC}[KQ3EGRTLXK7PZ2M4N",  # grep --color splitting an access key
    f'"out": "{ESC}[32mghp_{ESC}[0m{GITHUB[4:]}"'.replace(ESC, "\\u001b"),  # JSON shown raw
    f"ghp_{ESC}]8;;https://example.com{ESC}\\{GITHUB[4:]}{ESC}]8;;{ESC}\\",  # an OSC 8 link in the middle
])
def test_colour_codes_never_split_a_secret(text):
    out = redact(text)
    assert "[REDACTED:" in out
    assert not leaked(out) and "Q3EGRTLXK7PZ2M4N" not in out


def test_colour_codes_without_a_secret_are_kept_byte_for_byte():
    text = f"{ESC}[1;32mPASSED{ESC}[0m tests/test_queue.py::test_retry {ESC}[33m(token refresh){ESC}[0m"
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    f"gh\u200bp_{GITHUB[4:]}",  # a zero-width space
    f"ghp_{GITHUB[4:14]}\u00ad{GITHUB[14:]}",  # a soft hyphen
    "AKIA\u200dQ3EGRTLXK7PZ2M4N",  # a zero-width joiner
    "".join(chr(ord(c) + 0xFEE0) for c in "ghp_") + GITHUB[4:],  # fullwidth letters
    "AKIAQ3EGRTLX\u202eK7PZ2M4N",  # a bidi override
    f"ghp_{GITHUB[4:10]}\x00{GITHUB[10:]}",  # a NUL
    "\u210ahp_" + GITHUB[4:],  # a script letter
    "\u24b6KIAQ3EGRTLXK7PZ2M4N",  # a circled one
    "AKIAQ3EGRT\ue000LXK7PZ2M4N",  # a private-use character
    "AKIAQ3EGRT\u0378LXK7PZ2M4N",  # an unassigned one
    "AKIAQ3EGRT\U0001bca0LXK7PZ2M4N",  # a shorthand format control
])
def test_characters_that_vanish_when_shown_never_hide_a_secret(text):
    """The hook and the terminal fold and drop these (``sanitize.visible``): what they would show whole is found
    whole, and counted."""
    from collections import Counter

    from backscroll.sanitize import printable

    counts: Counter = Counter()
    out = redact(text, counts)
    assert "[REDACTED:" in out and sum(counts.values()) == 1, out
    assert not leaked(printable(out)) and "Q3EGRTLXK7PZ2M4N" not in printable(out)


def test_only_the_token_that_hid_a_secret_is_rewritten_as_shown():
    rest = "\u2014 10\u207b\u00b3 s, x\u00b2, \u00bd \U0001f468\u200d\U0001f467"  # what NFKC would fold, kept
    text = f"\u26a0\ufe0f rotate {GITHUB[:10]}\u200b{GITHUB[10:]} {rest}"
    assert redact(text) == f"\u26a0\ufe0f rotate [REDACTED:github-token] {rest}"


def test_text_with_invisible_characters_and_no_secret_is_kept_as_it_is():
    text = "caf\u00e9 \u2764\ufe0f ok \u200b the \uff21PI works; token refresh is fine"
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret"), [
    ("MYSQL_ROOT_PASSWORD=correcthorsebatterystaple", True),
    ("  - POSTGRES_PASSWORD=supersecretvalue", True),
    ("JWT_SECRET=mysupersecretjwtkey", True),
    ("REDIS_PASSWORD: myredispassword", False),  # YAML and prose: "PASSWORD: disabled", "PASS: integration"
    ("PASSWORD: disabled", False),
    ("TESTS PASS: integration", False),
    ("CREDENTIALS=environment", False),
    ("PASSWORD_POLICY=standard", False),  # a name that goes on names a setting
    ("DB_PASSWORD_FILE=dbpasswordfile", False),
    ("SECRET_NAME=mysecretname", False),
    ("DB_PASSWORD: SecretStr = Field()", False),  # a type
    ("PASSWORD = password_var", False),  # code
    ("DB_PASSWORD=changeme", False),  # a placeholder
    ("SECRET_KEY=settings.SECRET", False),
    ("password=letmein", False),  # a lowercase name may be code: its value a variable
])
def test_an_upper_case_name_s_lowercase_password_is_a_password(text, secret):
    assert ("[REDACTED:" in redact(text)) is secret, redact(text)


@pytest.mark.parametrize("token", [
    "dp.st.dev.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGh",
    "dp.st.prd_eu-2.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGh",
    "dp.st.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGh",
    "dp.pt.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGhijk",
    "dp.ct.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGhijk",
    "dp.sa.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGhijk",
    "dp.scim.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGhijk",
    "dp.audit.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGhijk",
])
def test_doppler_tokens_of_every_kind_are_redacted(token):
    out = redact(f"run it with {token} in the env")
    assert out == "run it with [REDACTED:doppler-token] in the env"


@pytest.mark.parametrize("text", ["see dp.st.docs for the service token format",
                                  "dp.st.dev.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])
def test_doppler_look_alikes_stay(text):
    assert redact(text) == text


# -- an upgraded store -------------------------------------------------------------------------

def test_the_older_store_holds_what_its_rules_missed():
    """The fixture is what the tests below need: the secrets in the store, its title and its index files."""
    home = Home.__new__(Home)
    home.data = OLD / "home"
    assert sorted(leaked(db_text(home))) == sorted(BODIES)
    assert index_terms(OLD / "home") >= 1


def test_an_upgrade_redacts_the_records_whose_logs_are_gone(upgraded):
    r = run_cli(upgraded, "search", "payments", "deploy", "doppler", "token", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["results"], "the session is still found by its other words"
    assert any("redaction rules were updated" in n and "doppler-token" in n for n in out["notes"]), out["notes"]
    assert not leaked(r.stdout)
    for args in (["show", "7c0a6b1e-1111"], ["show", "7c0a6b1e-2222"], ["list"],
                 ["search", "gh", "auth", "status"], ["search", "billing", "profile", "secret"]):
        shown = run_cli(upgraded, *args)
        assert shown.returncode == 0, (args, shown.stderr)
        assert not leaked(shown.stdout + shown.stderr), args
    assert not leaked(db_text(upgraded))
    conn = sqlite3.connect(upgraded.data / "backscroll.db")
    try:
        assert {v for (v,) in conn.execute("SELECT DISTINCT redaction FROM records")} == {redact_again.RULES_VERSION}
        kinds = dict(conn.execute("SELECT kind, count FROM redactions"))
    finally:
        conn.close()
    assert kinds.get("doppler-token", 0) >= 2 and kinds.get("github-token", 0) >= 1
    assert index_terms(upgraded.data) == 0, "no term of the old text is left in the index"
    old_generation = (OLD / "home" / "index" / "CURRENT").read_text().strip()
    assert not (upgraded.data / "index" / old_generation).exists(), "the old segments are gone with their terms"


def test_vectors_follow_the_redacted_text(upgraded):
    before = sqlite3.connect(OLD / "home" / "backscroll.db")
    try:
        old_units = {u for (u,) in before.execute(
            "SELECT unit_hash FROM records WHERE session_id LIKE '7c0a6b1e-1111%' AND unit_hash != ''")}
    finally:
        before.close()
    assert old_units
    r = run_cli(upgraded, "index")
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(upgraded.data / "backscroll.db")
    try:
        units = {u for (u,) in conn.execute(
            "SELECT unit_hash FROM records WHERE session_id LIKE '7c0a6b1e-1111%' AND unit_hash != ''")}
        embedded = {h for (h,) in conn.execute("SELECT content_hash FROM embeddings")}
    finally:
        conn.close()
    assert units and units <= embedded, "the session's prose is embedded again"
    gone = old_units - units
    assert gone, "the unit that held the token has a new text"
    assert not gone & embedded, "the old text's vector is pruned"


def test_the_pass_runs_once_and_resumes_where_it_stopped(upgraded, monkeypatch):
    store = Store.open(upgraded.data / "backscroll.db")
    try:
        monkeypatch.setattr(redact_again, "BATCH", 4)
        calls = {"n": 0}
        real = store.mark_redacted

        def mark_then_stop(*args):  # killed after the first batch's commit
            real(*args)
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt

        monkeypatch.setattr(store, "mark_redacted", mark_then_stop)
        with pytest.raises(KeyboardInterrupt):
            redact_again.redact_again(store)
        monkeypatch.setattr(store, "mark_redacted", real)
        assert not redact_again.is_current(store)
        resumed = redact_again.redact_again(store)
        assert resumed.records == 5, "the first batch of four is not read again"
        assert redact_again.is_current(store)
        assert redact_again.redact_again(store).records == 0, "a current store costs one read"
    finally:
        store.close()
    assert not leaked(db_text(upgraded))


# -- reads that cannot redact the store first --------------------------------------------------

def test_a_read_while_another_process_writes_redacts_what_it_shows(upgraded):
    cfg = resolve(home=upgraded.data)
    with writer_lock(cfg) as held:
        assert held
        for args in (["search", "payments", "deploy", "doppler", "--json", "--no-sync"],
                     ["show", "7c0a6b1e-1111", "--json"]):
            r = run_cli(upgraded, *args)
            assert r.returncode == 0, (args, r.stderr)
            assert "payments" in r.stdout and not leaked(r.stdout), args


def test_a_recall_hook_on_a_store_behind_the_rules_injects_no_secret(session_builder, backscroll_home):
    secret = session_builder.claude(project="billing")
    secret.user(f"the ledger reconciliation deploy needs the Doppler token {DOPPLER} in its env")
    secret.assistant(f"Set DEPLOY_ENV from {DOPPLER} for the ledger reconciliation deploy job.")
    for i in range(30):  # common words become common
        s = session_builder.claude(project=f"p{i % 3}")
        s.user(f"please fix the failing test number {i} in the job queue")
        s.assistant(f"Fixed test {i}: the job queue worker now retries once.")
    env = cli_env(backscroll_home, BACKSCROLL_REDACT="0")  # stored as an older release would have
    assert run_cli(backscroll_home, "index", env=env).returncode == 0
    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    with conn:  # as the upgrade's migration leaves it: the store's version unknown
        conn.execute("UPDATE meta SET value = NULL WHERE key = 'redaction_version'")
    conn.close()
    payload = {"session_id": "b5e0c7a2-0000-4000-8000-000000000009", "transcript_path": "/tmp/x/b5e0c7a2.jsonl",
               "cwd": "/home/dev/billing", "hook_event_name": "UserPromptSubmit",
               "prompt": "how does the ledger reconciliation deploy get its Doppler token?"}
    p = subprocess.run([str(Path(sys.executable).with_name("backscroll")), "hook", "claude", "prompt"],
                       input=json.dumps(payload), capture_output=True, text=True, env=cli_env(backscroll_home),
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert "<backscroll-recall" in p.stdout, "recall fired"
    assert "ledger reconciliation" in p.stdout and DOPPLER not in p.stdout and "[REDACTED:doppler-token]" in p.stdout


# -- the team archive --------------------------------------------------------------------------

def archive_text(url: str) -> str:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT text, title, cwd, project, tool_name, words FROM backscroll.records").fetchall()
    return "\n".join(str(v) for row in rows for v in row)


def test_a_push_never_sends_what_older_rules_missed(pg_url, upgraded):
    from backscroll.team.push import push

    url = fresh_archive(pg_url, "redaction_push", "ivy")
    store = Store.open(upgraded.data / "backscroll.db")  # migrated, not yet redacted again
    try:
        assert redact_again.behind(store)
        with Archive.connect(url) as archive:
            report = push(store, archive, "fake-hash-384")
    finally:
        store.close()
    assert report.pushed == 9
    text = archive_text(url)
    assert "payments" in text and "[REDACTED:doppler-token]" in text
    assert not leaked(text)


def test_rows_an_older_release_pushed_get_the_new_rules_on_the_next_push(pg_url, upgraded):
    from backscroll.archive import Backscroll
    from backscroll.team.marks import archive_key
    from backscroll.team.push import row_of

    url = fresh_archive(pg_url, "redaction_repush", "ivy")
    store = Store.open(upgraded.data / "backscroll.db")
    try:  # what the older release sent: the rows as stored, and its mark past them
        with Archive.connect(url) as archive:
            for rows in store.outbox(0, "fake-hash-384", 100):
                as_stored = [row_of((*r[:-1], redact_again.RULES_VERSION), True) for r in rows]
                archive.upsert("ivy", socket.gethostname(), as_stored)
            store.set_meta(f"archive_pushed:{archive_key(archive.identity(), 'ivy')}", "9")
    finally:
        store.close()
    assert leaked(archive_text(url))
    with Backscroll(home=upgraded.data) as bs:
        report = bs.push(url)
    assert report.pushed >= 3, "the records redacted again are sent again"
    text = archive_text(url)
    assert not leaked(text), "the archive's copies were replaced"
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM backscroll.records").fetchall() == [(9,)], "replaced, not doubled"
    with Backscroll(home=upgraded.data) as bs:
        assert bs.push(url).pushed == 0, "and only once"
