"""Secret redaction at ingest: every common secret form is redacted everywhere it could be stored
(records, titles, tool names, cwd), look-alikes are kept verbatim, and no pattern is super-linear.

All values below are fake; they only have the shape of real credentials.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from redaction_forms import FORMS  # noqa: E402
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest.redact import RULES, redact

# Look-alikes that must come back verbatim (each once redacted a part of itself or of what followed).
KEEP = [
    'def test_detects_pem():\n    if "-----BEGIN PRIVATE KEY-----" in text:\n        return True\n'
    "    assert parse(body) == expected\n    return False  # the rest of the file must survive\n",
    "KEY_HEADER = '-----BEGIN PRIVATE KEY-----'\nprint('no key here, just the marker')\n",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "pip install sk-video-processing-toolkit",
    "the package sk-learn-tutorial-2023-edition",
    "xoxo-gossip-girl-season-one-episode-2",
    "Bearer authentication_required_for_this_endpoint",
    "use Bearer tokens for the internal api",
    "password = request.form['password']",
    "token = get_token(session)",
    "self.token = token",
    "SECRET_KEY = os.environ['SECRET_KEY']",
    "key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}",
    "sorted(items, key=len)",
    "max_tokens: 100000",
    "monkey=abcdef123456",
    "password: incorrect",
    'cache_key = "user:123:profile"',
    "open http://localhost:3000/@vite/client in the browser",
    "https://registry.npmjs.org:443/@types/node",
    "export PASSWORD=$DB_PASSWORD",
    "mkdir -p build && ssh -p 2222 host",
    "the primary_key: id",
    "Authorization: Basic realm",
    "PASSWORD=<your password here>",
]


def _session(session_builder, i: int, name: str, text: str):
    s = session_builder.claude(project=f"redact{i}")
    s.user(f"planted form {name.replace('-', '')} here: {text}")
    s.tool(f"echo {text}", f"planted output {text}")
    s.assistant(f"the value was {text}")
    s.summary(f"{name} {text}")
    return s


def _outputs(runner, queries, session_ids) -> str:
    """What every surface prints: each query searched by default (its own form's records first), the broad ones
    (every form's records in one page) in each mode too, and every session shown and listed."""
    out = []
    broad = {"planted form", "planted output", "the value was"}
    for q in queries:
        for extra in ([], ["--mode", "lexical"], ["--include-echoes", "--content-type", "tool"]):
            if extra and q not in broad:
                continue
            r = runner.invoke(app, ["search", q, "--json", "--max-chars", "0", "--limit", "300", *extra])
            data = json.loads(r.stdout)
            data.pop("query")  # the caller's own words, echoed back
            out.append(json.dumps(data, ensure_ascii=False) + r.stderr)
    for sid in session_ids:
        out.append(runner.invoke(app, ["show", sid, "--json", "--full"]).stdout)
        out.append(runner.invoke(app, ["show", sid, "--full"]).stdout)
    out.append(runner.invoke(app, ["list", "--json", "--limit", "500"]).stdout)
    out.append(runner.invoke(app, ["list", "--limit", "500"]).stdout)
    return "\n".join(out)


def _store_bytes(home) -> bytes:
    """Every byte under the data dir: the store and its side files, the lexical index's terms, the vectors."""
    return b"".join(p.read_bytes() for p in home.data.rglob("*") if p.is_file())


@pytest.mark.slow  # ~10 s of CPU: every form indexed and searched end to end (each form alone: below)
def test_every_secret_form_is_redacted_everywhere(session_builder, backscroll_home, backscroll_index):
    sessions = [_session(session_builder, i, name, text) for i, (name, text, _f) in enumerate(FORMS)]
    backscroll_index()
    runner = CliRunner()
    # (not the fragments themselves as queries: notes on stderr may echo a query's words)
    queries = [f"planted form {name.replace('-', '')}" for name, _t, _f in FORMS] + ["planted form", "planted output",
                                                                                 "the value was"]  # (broad)
    blob = _outputs(runner, queries, [s.session_id for s in sessions])
    raw = _store_bytes(backscroll_home)
    leaked = [name for name, _t, frags in FORMS if any(f in blob for f in frags)]
    assert leaked == [], f"secrets in search/show/list output: {leaked}"
    # (the lexical index keeps its terms lowercased; a fragment without digits may be anyone's word)
    in_store = [name for name, _t, frags in FORMS
                if any(f.encode() in raw or (any(c.isdigit() for c in f) and f.lower().encode() in raw) for f in frags)]
    assert in_store == [], f"secrets under the data dir (store, index terms): {in_store}"
    for name, _t, _f in FORMS:  # the records are still there, with the marker in place of the secret
        assert f"planted form {name.replace('-', '')} here" in blob
    assert blob.count("[REDACTED:") >= 4 * len(FORMS)
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert sum(status["redactions"].values()) >= 4 * len(FORMS)


@pytest.mark.parametrize("name,text,frags", FORMS, ids=[f[0] for f in FORMS])
def test_each_form_is_redacted(name, text, frags):
    out = redact(text)
    assert "[REDACTED:" in out
    assert not any(f in out for f in frags), out


@pytest.mark.parametrize("text", KEEP)
def test_look_alikes_are_kept_verbatim(text):
    assert redact(text) == text


def test_look_alikes_survive_ingest(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude(project="lookalikes")
    for text in KEEP:
        s.user(text)
    backscroll_index()
    shown = json.loads(CliRunner().invoke(app, ["show", s.session_id, "--json", "--full"]).stdout)
    texts = [r["text"] for r in shown["records"]]
    assert texts == [k.strip() for k in KEEP]  # (the parser trims the ends of a message)


def test_titles_tool_names_and_cwd_are_redacted(session_builder, backscroll_home, backscroll_index):
    token = "ghp_R8kM2vXq9LtY4wZp7NcB3hJd6FsA1uGe5TnQ"
    # the session file's own path is named after the cwd, so put the token only in the recorded cwd
    s = session_builder.claude(project="titles")
    s.cwd = f"/work/{token}/shop"
    s.user("rotate the deploy token")
    call = s.tool_use(f"deploy-{token}", {"command": f"gh auth login --with-token {token}"})
    s.tool_result(call, "logged in")
    s.summary(f"Rotate {token} and redeploy")
    backscroll_index()
    runner = CliRunner()
    listed = runner.invoke(app, ["list", "--json"]).stdout
    shown = runner.invoke(app, ["show", s.session_id, "--json", "--full"]).stdout
    assert "Rotate [REDACTED:github-token] and redeploy" in listed
    blob = listed + shown + runner.invoke(app, ["list"]).stdout
    assert token not in blob
    assert token.encode() not in _store_bytes(backscroll_home)


# -- ReDoS: every pattern is linear ----------------------------------------------------------

_FUZZ = textwrap.dedent("""
    import sys, time
    from backscroll.ingest.redact import redact, OWN_RULES, RULES
    def within_budget(seeds, size):
        for seed in sorted(seeds):
            start = time.perf_counter()
            for glue in ("", " ", "-", "\\n", "=", "\\\\n"):
                unit = seed + glue
                text = unit * (size // len(unit) + 1)
                redact(text[:size])
                if time.perf_counter() - start > 10:
                    sys.exit(f"superlinear: {seed!r} glued by {glue!r} took {time.perf_counter() - start:.1f} s")
    ours = set(sys.argv[1:])
    for rule in OWN_RULES:
        ours.update(rule.markers)
    within_budget(ours, 128 * 1024)
    theirs = {m for rule in RULES[len(OWN_RULES):] for m in rule.markers} - ours
    within_budget(theirs, 16 * 1024)  # gitleaks' keywords: two hundred rules, each on a shorter text
    print("ok", len(ours), len(theirs))
""")

_PREFIXES = [
    "eyJ-", "eyJ", "eyJhbGciOi.", "sk-", "sk-proj-", "sk-ant-api03-", "xoxb-1-", "ghp_", "github_pat_", "glpat-",
    "-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----BEGIN PRIVATE KEY-----\\nAAAA",
    "Private-Lines: 1\nAAAA", "postgres://a:", "https://u:p@", "://", "a:@", "password=", "password: ",
    '"password": "', "apiKey=", "token=", "key=", "Bearer ", "Authorization: Basic ", "mysql -p", "curl -u a:",
    "AKIA", "AKIAAAAA\n", "\\u0041KIA", "\\u00", "AccountKey=", "&sig=", "SG.", "AGE-SECRET-KEY-1", "hvs.",
]


@pytest.mark.slow  # ~25 s of CPU in a subprocess
def test_no_pattern_is_superlinear(tmp_path):
    """128 KB of repeated prefixes of every pattern of ours (16 KB of every gitleaks keyword), glued by the characters
    they stop at: each prefix's six texts within 10 s, where the slowest linear one takes half a second on a quiet
    machine. A quadratic pattern takes far longer (the JWT one took 123 s on one text of 256 KB, 31 s at 128 KB); the
    budget per prefix, not one for the whole run, is what finds a pattern a few times milder than that one."""
    proc = subprocess.run([sys.executable, "-c", _FUZZ, *_PREFIXES], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok"), proc.stdout


def test_rules_have_markers():
    assert all(rule.markers for rule in RULES)
