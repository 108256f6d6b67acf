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
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest.redact import RULES, redact

# (name, text holding the secret, fragments that must not survive)
FORMS: list[tuple[str, str, tuple[str, ...]]] = [
    ("aws-access-key", "deploy with AKIAQ3EGRTLXK7PZ2M4N now", ("Q3EGRTLXK7PZ2M4N",)),
    ("aws-secret-key", "aws_secret_access_key = 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", ("9dR+uT2kQ7vXw3Lz",)),
    ("aws-unicode-escape", '{"AccessKeyId": "\\u0041KIAR7TQ2WXMB5LYNC3D"}', ("R7TQ2WXMB5LYNC3D",)),
    ("aws-split-line", "Your key: AKIAV6HJ2K\nPQ4RST7W8X\nkeep it safe", ("V6HJ2K", "PQ4RST7W8X")),
    ("github-classic", "token ghp_R8kM2vXq9LtY4wZp7NcB3hJd6FsA1uGe5TnQ", ("R8kM2vXq9LtY4wZp7NcB3hJd6FsA1uGe5TnQ",)),
    ("github-fine-grained", "github_pat_11ABCDE2Y0aBcDeFgHiJkLm_nOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqRsTuV",
     ("nOpQrStUvWxYz0123456789",)),
    ("gitlab", "GITLAB=glpat-Xy7Zq2Lm9Np4Rt6Vw8Bk", ("Xy7Zq2Lm9Np4Rt6Vw8Bk",)),
    ("openai-project", "OPENAI sk-proj-Qx7Lm2Np9Rt4Vw6Bk8Zy3Hc5Jd1Fg0Ks2Ma4Pb6", ("Qx7Lm2Np9Rt4Vw6Bk8Zy3Hc5",)),
    ("openai-legacy", "sk-Zx81LmQ2T3BlbkFJr9Vw6Bk8Zy3Hc5Jd1Fg0Ks2Ma4Pb6Nn7", ("Zx81LmQ2T3BlbkFJr9Vw6",)),
    ("anthropic", "sk-ant-api03-Kq8Lm2Np9Rt4Vw6Bk8Zy3Hc5Jd1Fg0Ks2Ma4Pb6Nn7Xx-AbCdEf", ("Kq8Lm2Np9Rt4Vw6Bk8Zy3",)),
    ("slack-bot", "xoxb-2950287301-4829103847562-Qx7Lm2Np9Rt4Vw6Bk8Zy3Hc5", ("Qx7Lm2Np9Rt4Vw6Bk8Zy3Hc5",)),
    ("slack-user", "xoxp-2950287301-2950287302-4829103847562-9f8e7d6c5b4a39281706f5e4d3c2b1a0",
     ("9f8e7d6c5b4a39281706f5e4d3c2b1a0",)),
    ("slack-app", "SLACK_APP_TOKEN xapp-1-A05BCDEF12G-5829103847562-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d",
     ("5829103847562-9f8e7d6c5b4a",)),
    ("slack-webhook", "https://hooks.slack.com/services/T02ABCDEF/B05GHIJKL/Xy7Zq2Lm9Np4Rt6Vw8Bk3Hc5",
     ("Xy7Zq2Lm9Np4Rt6Vw8Bk3Hc5",)),
    ("stripe-live", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc9x", ("4eC39HqLyjWDarjtT1zdp7dc",)),
    ("stripe-test", "STRIPE=sk_test_51Hx9kLmN2pQ7rS4tU8vW0xY3zA", ("51Hx9kLmN2pQ7rS4tU8vW0",)),
    ("stripe-restricted", "rk_live_51Hx9kLmN2pQ7rS4tU8vW0xY3zB", ("51Hx9kLmN2pQ7rS4tU8vW0xY3zB",)),
    ("stripe-webhook", "signing secret whsec_Mx8f2Lq9Rt4Vw6Bk8Zy3Hc5Jd1Fg0Ks2", ("Mx8f2Lq9Rt4Vw6Bk8Zy3Hc5",)),
    ("jwt", "SESSION=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     ("dozjgNryP4J3jVmNHl0w5N",)),
    ("bearer", "curl -H 'Authorization: Bearer abcdef0123456789abcdef0123' https://api.example.com",
     ("abcdef0123456789abcdef0123",)),
    ("basic-auth", 'curl -H "Authorization: Basic dXNlcjpTM2NyM3RQNHNzd29yZA==" https://api.example.com',
     ("dXNlcjpTM2NyM3RQNHNzd29yZA",)),
    ("curl-user", "curl -u admin:Zq8sW2xPl9 https://api.example.com/v1", ("Zq8sW2xPl9",)),
    ("postgres-url", "DATABASE_URL=postgresql://app:s3cr3t-P4ssw0rd@db:5432/shop", ("s3cr3t-P4ssw0rd",)),
    ("db-url-at-in-password", "mongodb+srv://admin:Pa@ss9Wd42@cluster0.example.net/prod", ("Pa@ss9Wd42", "ss9Wd42")),
    ("db-url-slash-in-password", "mysql://root:Kx9/Qw3z@db.internal:3306/app", ("Kx9/Qw3z", "Qw3z@")),
    ("redis-url-no-user", "REDIS_URL=redis://:Rd8pQ2xZ7v@cache:6379/0", ("Rd8pQ2xZ7v",)),
    ("url-userinfo", "git clone https://deploy:Gh7xQ2mPz9@git.example.com/org/repo.git", ("Gh7xQ2mPz9",)),
    ("gcp-private-key-id", '{"type": "service_account", "private_key_id": "3f2a9c1b7e8d4f6a0b5c2e9d1a7f3b8c6e4d2a10"}',
     ("3f2a9c1b7e8d4f6a0b5c2e9d1a7f3b8c6e4d2a10",)),
    ("gcp-private-key-json", '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'
     'BKcwggSjAgEAAoIBAQC7\\nq9Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4Pb6\\n-----END PRIVATE KEY-----\\n"}',
     ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "q9Lm2Np4Rt6Vw8Bk3Hc5")),
    ("azure-storage", "DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5"
     "MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0hJSg==;EndpointSuffix=core.windows.net",
     ("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",)),
    ("azure-sas", "https://shop.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sig=Rk9vYmFy%2BYmF6cXV4MTIzNDU2Nzg5MGFi%3D",
     ("Rk9vYmFy%2BYmF6cXV4MTIzNDU2",)),
    ("npm", "//registry.npmjs.org/:_authToken=npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7C", ("Ab3dEf6hIj9kLm2nOp5qRs8",)),
    ("pypi", "password = pypi-AgEIcHlwaS5vcmcCJGY4ZTk3ZmE1LWM2NzQtNDI1Mi1hNzA2LTQ1ZWMzYzhhN2YwOQACKlszLCJmNjc",
     ("AgEIcHlwaS5vcmcCJGY4ZTk3ZmE1",)),
    ("export-password", "export PASSWORD=hunter2secret", ("hunter2secret",)),
    ("dotenv-secret-key", "DEBUG=1\nSECRET_KEY=django-insecure-x8#kq2!m9z@v4w7p\nALLOWED_HOSTS=*",
     ("x8#kq2!m9z@v4w7p",)),
    ("dotenv-api-key", "API_KEY=abcd1234efgh5678ijkl", ("abcd1234efgh5678ijkl",)),
    ("huggingface", "HF_TOKEN hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", ("AbCdEfGhIjKlMnOpQrStUvWxYz",)),
    ("google-api-key", "key AIzaSyD3x9Kq2Lm7Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks", ("SyD3x9Kq2Lm7Np4Rt6Vw8Bk3",)),
    ("google-oauth-secret", "client_secret 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", ("Ab3dEf6hIj9kLm2nOp5qRs8",)),
    ("twilio-api-key", "twilio SK2f9c8e7d6b5a49382716f5e4d3c2b1a0 ok", ("2f9c8e7d6b5a49382716f5e4d3c2b1a0",)),
    ("twilio-auth-token", "TWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0", ("9f8e7d6c5b4a39281706f5e4d3c2b1a0",)),
    ("sendgrid", "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", ("TwL2iGABf9DHoTf",)),
    ("slack-xapp-in-json", '{"app_token": "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef"}',
     ("1234567890123-abcdef0123456789",)),
    ("mysql-p", "mysql -u root -pS3cretPass42 shop < dump.sql", ("S3cretPass42",)),
    ("json-password", '{"username": "admin", "password": "Tr0ub4dor&3"}', ("Tr0ub4dor&3",)),
    ("jdbc-password", "jdbc:sqlserver://db:1433;databaseName=shop;user=app;password=Wq8zPl2xMn", ("Wq8zPl2xMn",)),
    ("yaml-password", "database:\n  user: app\n  password: Hx9zWq2pLm\n", ("Hx9zWq2pLm",)),
    ("cli-password-flag", "psql --password=Yq7sPl2xZn --host db", ("Yq7sPl2xZn",)),
    ("docker-env-password", "docker run -e POSTGRES_PASSWORD=Kd8sLq2pWx postgres:16", ("Kd8sLq2pWx",)),
    ("shopify", "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", ("a1b2c3d4e5f60718293a4b5c6d7e8f90",)),
    ("digitalocean", "dop_v1_" + "a1b2c3d4e5f60718293a4b5c6d7e8f90" * 2, ("a1b2c3d4e5f60718293a4b5c6d7e8f90",)),
    ("age", "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQ8L5R0",
     ("QYQSZQGPQYQSZQGPQYQSZQGP",)),
    ("putty", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
     "AAAAC3NzaC1lZDI1NTE5AAAAIPu8bL1cK3yZ0aAaBbCcDdEeFfGgHhIiJjKkLlMm\nXx8\nPrivate-Lines: 1\n"
     "AAAAIHd8Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4Pb6Nn7Xx9Qz\nPrivate-MAC: 5e4d3c2b1a0f9e8d7c6b5a49382716f5e4d3c2b1",
     ("AAAAIHd8Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0", "5e4d3c2b1a0f9e8d7c6b5a4")),
    ("pem-rsa", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx4Tq9privatekeymaterial\n"
     "Zq8sW2xPl9Kd8sLq2pWxYq7sPl2xZn\n-----END RSA PRIVATE KEY-----", ("MIIEpAIBAAKCAQEAx4Tq9", "Zq8sW2xPl9Kd8s")),
    ("pem-openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
     "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACDq9Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2\n-----END OPENSSH PRIVATE KEY-----",
     ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUA", "Lm2Np4Rt6Vw8Bk3Hc5Jd1")),
    ("pem-encrypted-headers", "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,"
     "9F8E7D6C5B4A3928\n\nMHcCAQEEIBq9Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4Pb6Nn7Xx9\n-----END EC PRIVATE KEY-----",
     ("MHcCAQEEIBq9Lm2Np4Rt6Vw8Bk3",)),
    ("pem-cut-off", "$ head -3 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n"
     "MIIEpAIBAAKCAQEAx4Tq9Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4\n"
     "Pb6Nn7Xx9Qz8Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4Pb6Nn7Xx9", ("MIIEpAIBAAKCAQEAx4Tq9Lm2", "Pb6Nn7Xx9Qz8Lm2Np4")),
    ("telegram", "bot 1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 started", ("AAHdqTcvCH1vGWJxfSeofSAs0K5",)),
    ("vault", "VAULT_TOKEN hvs.CAESIJq9Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4Pb6Nn7Xx9", ("CAESIJq9Lm2Np4Rt6Vw8",)),
    ("databricks", "dapi0123456789abcdef0123456789abcdef", ("0123456789abcdef0123456789abcdef",)),
    ("dockerhub", "dckr_pat_Ab3dEf6hIj9kLm2nOp5qRs8tUv1", ("Ab3dEf6hIj9kLm2nOp5qRs8",)),
    ("generic-token-yaml", "github:\n  token: 7f3a9c1b2e8d4f6a0b5c", ("7f3a9c1b2e8d4f6a0b5c",)),
    ("camel-case-key", 'const config = { apiKey: "Zk3Lq9Wx2Pm7Nb4Vc8Hd" };', ("Zk3Lq9Wx2Pm7Nb4Vc8Hd",)),
]

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
    out = []
    for q in queries:
        for extra in ([], ["--mode", "lexical"], ["--include-echoes", "--content-type", "tool"]):
            r = runner.invoke(app, ["search", q, "--json", "--max-chars", "0", "--limit", "50", *extra])
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
    queries = [f"planted form {name.replace('-', '')}" for name, _t, _f in FORMS] + ["planted output", "the value was"]
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
    def run(seeds, size):
        for seed in sorted(seeds):
            for glue in ("", " ", "-", "\\n", "=", "\\\\n"):
                unit = seed + glue
                text = unit * (size // len(unit) + 1)
                redact(text[:size])
    ours = set(sys.argv[1:])
    for rule in OWN_RULES:
        ours.update(rule.markers)
    run(ours, 256 * 1024)
    theirs = {m for rule in RULES[len(OWN_RULES):] for m in rule.markers} - ours
    run(theirs, 32 * 1024)  # gitleaks' keywords: two hundred rules, each on a shorter text
    print("ok", len(ours), len(theirs))
""")

_PREFIXES = [
    "eyJ-", "eyJ", "eyJhbGciOi.", "sk-", "sk-proj-", "sk-ant-api03-", "xoxb-1-", "ghp_", "github_pat_", "glpat-",
    "-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----BEGIN PRIVATE KEY-----\\nAAAA",
    "Private-Lines: 1\nAAAA", "postgres://a:", "https://u:p@", "://", "a:@", "password=", "password: ",
    '"password": "', "apiKey=", "token=", "key=", "Bearer ", "Authorization: Basic ", "mysql -p", "curl -u a:",
    "AKIA", "AKIAAAAA\n", "\\u0041KIA", "\\u00", "AccountKey=", "&sig=", "SG.", "AGE-SECRET-KEY-1", "hvs.",
]


@pytest.mark.slow  # ~30 s of CPU in a subprocess
def test_no_pattern_is_superlinear(tmp_path):
    """256 KB of repeated prefixes of every pattern of ours (32 KB of every gitleaks keyword), glued by
    the characters they stop at. A quadratic pattern takes minutes on one of these (the JWT one took
    123 s); all finish in seconds."""
    proc = subprocess.run([sys.executable, "-c", _FUZZ, *_PREFIXES], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok")


def test_rules_have_markers():
    assert all(rule.markers for rule in RULES)
