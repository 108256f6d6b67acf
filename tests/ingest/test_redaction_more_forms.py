"""Secret redaction, round two: the forms a second attack planted (config files agents `cat`, passwords
in commands and prose, tokens in headers and URLs, provider tokens, keys after string escaping),
looked for in every output, in the hook's injected context, in the store and in the lexical index's
files; and the look-alikes that must stay verbatim.

All values below are fake; they only have the shape of real credentials.
"""

from __future__ import annotations

import base64
import json

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest.redact import redact

_B64_USERPASS = base64.b64encode(b"deploy:S3cr3tP4sswordHere").decode()
_DOCKERCONFIGJSON = base64.b64encode(json.dumps(
    {"auths": {"registry.example.com": {"username": "deploy", "password": "Qx7Lm2Np9Rt4",
                                         "auth": _B64_USERPASS}}}).encode()).decode()
_B64_API_KEY = base64.b64encode(b"sk-proj-Qx7Lm2Np9Rt4Vw6Bk8Zy3Hc5Jd1Fg0Ks2Ma4Pb6").decode()
_KEY_B64 = base64.b64encode(b"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx4Tq9Lm2Np4Rt6Vw8Bk3\n"
                            b"-----END RSA PRIVATE KEY-----\n").decode()

# (name, text holding the secret, fragments that must not survive)
FORMS: list[tuple[str, str, tuple[str, ...]]] = [
    ("docker-config-auth", '{"auths": {"https://index.docker.io/v1/": {"auth": "' + _B64_USERPASS + '"}}}',
     (_B64_USERPASS[4:30],)),
    ("dockerconfigjson", "data:\n  .dockerconfigjson: " + _DOCKERCONFIGJSON
     + "\ntype: kubernetes.io/dockerconfigjson", (_DOCKERCONFIGJSON[20:60],)),
    ("npmrc-auth", "registry=https://npm.example.com/\n_auth=" + _B64_USERPASS + "\nalways-auth=true",
     (_B64_USERPASS[4:30],)),
    ("netrc", "machine api.example.com\n  login deploy\n  password Zq8sW2xPl9Kd\n", ("Zq8sW2xPl9Kd",)),
    ("netrc-one-line", "machine git.example.com login deploy password Hw7xQ2mPz9Lk", ("Hw7xQ2mPz9Lk",)),
    ("kubeconfig-client-key", "users:\n- name: admin\n  user:\n    client-key-data: " + _KEY_B64 + "\n",
     (_KEY_B64[10:50],)),
    ("sshpass", "sshpass -p 'Tr0ub4dor-ssh-pw' ssh deploy@10.0.0.5 uptime", ("Tr0ub4dor-ssh-pw",)),
    ("sshpass-unquoted", "sshpass -p Kd8sLq2pWxZ ssh -o StrictHostKeyChecking=no pi@raspberry", ("Kd8sLq2pWxZ",)),
    ("nmcli", "nmcli dev wifi connect HomeNet password Wq8zPl2xMnKd", ("Wq8zPl2xMnKd",)),
    ("prose-password", "ok, the db password is Kx9QwZ3zLp27 for the staging box", ("Kx9QwZ3zLp27",)),
    ("html-password-input", '<input type="password" name="pw" value="Hx9zWq2pLmQ4">', ("Hx9zWq2pLmQ4",)),
    ("authorization-token", "curl -H 'Authorization: Token 9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c' "
     "https://api.example.com/v2/builds", ("9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c",)),
    ("url-userinfo-token", "git remote set-url origin "
     "https://x9Kq2Lm7Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2@github.com/org/repo.git", ("x9Kq2Lm7Np4Rt6Vw8Bk3Hc5",)),
    ("s3-presigned", "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date="
     "20261201T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature="
     "3f2a9c1b7e8d4f6a0b5c2e9d1a7f3b8c6e4d2a103f2a9c1b7e8d4f6a0b5c2e9d", ("3f2a9c1b7e8d4f6a0b5c2e9d1a7f3b8c",)),
    ("doppler", "DOPPLER_TOKEN=dp.st.dev.Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7CdEfGh", ("Ab3dEf6hIj9kLm2nOp5qRs8",)),
    ("pem-double-escaped", '"{\\"private_key\\": \\"-----BEGIN PRIVATE KEY-----\\\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'
     '\\\\nq9Lm2Np4Rt6Vw8Bk3Hc5Jd1Fg0Ks2Ma4Pb6\\\\n-----END PRIVATE KEY-----\\\\n\\"}"',
     ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "q9Lm2Np4Rt6Vw8Bk3Hc5")),
    ("base64-api-key", "$ echo -n $OPENAI_API_KEY | base64\n" + _B64_API_KEY, (_B64_API_KEY[4:40],)),
    ("age-keygen-output", "# created: 2026-11-30T10:00:00Z\n"
     "# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n"
     "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX", ("GFPYYSJZGFPYYSJZGFPYYSJZ",)),
    ("aws-split-after-akia", "the key is AKIA\nQ3EGRTLXK7PZ2M4N, rotate it", ("Q3EGRTLXK7PZ2M4N",)),
    # a name that goes on past its keyword (seen in real Aider logs: a Phoenix config, .env files)
    ("name-goes-on-yaml", 'secret_key_base: "KICVlf7hOszt9Qx2LmPz8aBcDeFgH"', ("KICVlf7hOszt9Qx2",)),
    ("name-goes-on-env", "SECRET_KEY_BASE=Zq8Lm2Np9Rt4Vw6Bk8Zy3Hc5Jd1Fg0Ks", ("Zq8Lm2Np9Rt4Vw6B",)),
    ("name-goes-on-export", "export API_KEY_PROD=sk9f8Hq2LmPz0aBcDeF", ("sk9f8Hq2LmPz0aBcDeF",)),
    ("name-goes-on-quoted", 'DATABASE_PASSWORD_DEV="Hunter2!pw7x"', ("Hunter2!pw7x",)),
    ("pypi-upload", "twine upload -u __token__ -p "
     "pypi-AgEIcHlwaS5vcmcCJDk4ZTk3ZmE1LWM2NzQtNDI1Mi1hNzA2LTQ1ZWMz dist/*", ("AgEIcHlwaS5vcmcCJDk4ZTk3ZmE1",)),
    # rules version 3 (a review's planted forms): a registry login's -p, a value past an &, a secret in prose
    ("registry-login", "docker login -u me -p HsOmwhP49euIeKj1 reg.example.com", ("HsOmwhP49euIeKj1",)),
    ("podman-login-quoted", "podman login quay.io -u bot -p 'Qx7Lm2&Np9' --tls-verify", ("Qx7Lm2", "Np9")),
    ("password-past-ampersand", "password: dKnyzefG&5vUnDC", ("dKnyzefG", "5vUnDC")),
    # (not "&3" alone: two bytes turn up in the index's binary files by chance)
    ("password-tail-past-ampersand", "password: Tr0ub4dor&3 for now", ("Tr0ub4dor", "4dor&3")),
    ("secret-in-prose", "the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, rotate it", ("wJalrXUtnFEMI",)),
    ("secret-key-in-prose", "secret key ab12CD34ef56GH78ij90 for the bucket", ("ab12CD34ef56GH78ij90",)),
    # rules version 4: redis-cli's -a
    ("redis-cli-a", "redis-cli -h cache.internal -a Rt5kLm9QzW2x ping", ("Rt5kLm9QzW2x",)),
    ("redis-cli-pass-quoted", "redis-cli --pass 'Qx7Lm2Np9v' --no-auth-warning info", ("Qx7Lm2Np9v",)),
    ("redis-cli-quoted-pipe", 'redis-cli --pattern "a|b" --scan -a s3cretPass9', ("s3cretPass9",)),
    ("redis-cli-stderr-merged", "redis-cli -u redis://cache 2>&1 -a s3cretPass9", ("s3cretPass9",)),
    ("redis-cli-after-url", "redis-cli -u 'redis://cache?ssl=true&db=2' -a s3cretPass9 ping", ("s3cretPass9",)),
    ("redis-cli-url-unquoted", "redis-cli -u redis://cache?ssl=true&db=2 -a s3cretPass9 ping", ("s3cretPass9",)),
    ("redis-cli-continued", "redis-cli -h cache.internal \\\n  -a s3cretPass9 ping", ("s3cretPass9",)),
    # rules version 5: other tools' passwords on the command line
    ("ssh-keygen-new", "ssh-keygen -t ed25519 -N Zq8vLm2Np9 -f deploy_key", ("Zq8vLm2Np9",)),
    ("ssh-keygen-old-and-new", "ssh-keygen -p -P 'oldPass99x' -N newPass99x -f key", ("oldPass99x", "newPass99x")),
    ("ssh-keygen-then-next-command", "ssh-keygen -N pwZq8vLm2; ls", ("pwZq8vLm2",)),
    ("openssl-k", "openssl enc -aes-256-cbc -k Zq8vLm2Np9 -in a.tar -out a.enc", ("Zq8vLm2Np9",)),
    ("openssl-pass-source", "openssl pkcs12 -export -in c.pem -passout pass:Zq8vLm2Np9 -out c.p12", ("Zq8vLm2Np9",)),
    ("keytool", "keytool -genkey -keystore ks.jks -storepass Zq8vLm2Np9 -keypass Qx7Lm2Np9v", ("Zq8vLm2Np9",
                                                                                               "Qx7Lm2Np9v")),
    ("htpasswd-batch", "htpasswd -b .htpasswd admin Zq8vLm2Np9", ("Zq8vLm2Np9",)),
    ("htpasswd-bcrypt-cost", "htpasswd -bBC 12 /etc/nginx/.htpasswd admin Zq8vLm2Np9", ("Zq8vLm2Np9",)),
    ("htpasswd-print", "htpasswd -nb admin Zq8vLm2Np9 >> users", ("Zq8vLm2Np9",)),
    ("sudo-piped", "echo 'Zq8vLm2Np9' | sudo -S systemctl restart nginx", ("Zq8vLm2Np9",)),
    ("sudo-printf", "printf '%s\\n' Zq8vLm2Np9 | sudo -S -k whoami", ("Zq8vLm2Np9",)),
    # rules version 6: where each is run, up to the shell syntax after it
    ("sudo-stdin", "echo Zq8vLm2Np9 | sudo --stdin systemctl reload nginx", ("Zq8vLm2Np9",)),
    ("openssl-cipher-subcommand", "openssl aes-256-cbc -d -k Zq8vLm2Np9 -in a.enc", ("Zq8vLm2Np9",)),
    ("ssh-keygen-quoted-then-semicolon", "ssh-keygen -f k -N 'Zq8vLm2Np9';ls", ("Zq8vLm2Np9",)),
    ("ssh-keygen-in-backticks", "run `ssh-keygen -t rsa -N Zq8vLm2Np9 -f k` first", ("Zq8vLm2Np9",)),
    ("htpasswd-after-and", "cd /etc/nginx && htpasswd -b .htpasswd admin Zq8vLm2Np9|tee log", ("Zq8vLm2Np9",)),
]

# Rules version 7: where the tool runs (a command, not prose naming it), a weak password too, a quoted value whole,
# openssl's cipher aliases. Checked as commands (prose keeps what does not read as a password: KEEP).
RUN_FORMS: list[tuple[str, str, tuple[str, ...]]] = [
    ("sudo-weak", "echo letmein7 | sudo -S whoami", ("letmein7",)),
    ("ssh-keygen-weak", "ssh-keygen -t ed25519 -N opensesame -f deploy_key", ("opensesame",)),
    ("keytool-default-looking", "keytool -list -keystore ks.jks -storepass changeit", ("changeit",)),
    ("quoted-with-shell-syntax", "ssh-keygen -N 'pass;wo(rd1' -f k", ("pass;wo", "rd1")),
    ("openssl-alias", "openssl aes256 -k Vb4nRt8yQ -in a.tar", ("Vb4nRt8yQ",)),
    ("after-command-substitution", "ssh-keygen -t ed25519 -f $(mktemp -u) -N Hx2mWq7pL", ("Hx2mWq7pL",)),
    ("by-its-path", "/usr/bin/ssh-keygen -N Jy6tKc3vB -f k", ("Jy6tKc3vB",)),
    ("sudo-as-user", "echo Pw5sDf9gH | sudo -u root -S ls", ("Pw5sDf9gH",)),
    # version 8
    ("ssh-keygen-attached", "ssh-keygen -t ed25519 -NZq8vLm2Np9 -f k", ("Zq8vLm2Np9",)),
    ("ssh-keygen-attached-quoted", "ssh-keygen -f k -P'Zq8v Lm2Np9'", ("Zq8v Lm2Np9",)),
    ("keytool-new", "keytool -storepasswd -new Zq8vLm2Np9 -keystore ks.jks -storepass changeit",
     ("Zq8vLm2Np9", "changeit")),
    ("ssh-keygen-in-a-quoted-command", 'bash -c "ssh-keygen -t ed25519 -N Zq8vLm2Np9 -f k"', ("Zq8vLm2Np9",)),
]

# Provider tokens: their formats come from gitleaks' maintained rule set (redact_gitleaks).
PROVIDER_FORMS: list[tuple[str, str, tuple[str, ...]]] = [
    ("square", "square access token EAAAEOuLQObrVwJvCvoio3t8L0VZsJ9C7HBMbTpJk2u8Ix7-9ZKzNJbZCQOlnhWv ok",
     ("EOuLQObrVwJvCvoio3t8L0VZ",)),
    ("pulumi", "export PULUMI_ACCESS_TOKEN pul-4b7e1a9c2d5f8e3b6a0c9d2e5f8a1b4c7d0e3f6a",
     ("4b7e1a9c2d5f8e3b6a0c9d2e5f8a1b4c",)),
]

# Look-alikes that must come back verbatim.
KEEP = [
    "commit 3f2a9c1b7e8d4f6a0b5c2e9d1a7f3b8c6e4d2a10 fixed the retry loop",
    "session 9d240ba8-7c8a-50b8-94cb-08da561a357f was the last one",
    "image: postgres@sha256:4b5c2e9d1a7f3b8c6e4d2a103f2a9c1b7e8d4f6a0b5c2e9d1a7f3b8c6e4d2a10",
    '"integrity": "sha512-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0=="',
    "api_key = os.environ['API_KEY']",
    "password: ${DB_PASSWORD}",
    "secret: my-app-tls",
    "the password is stored in the vault, never in the repo",
    "sshpass -p \"$SSH_PASS\" ssh deploy@host",
    "redis-cli -a \"$REDIS_PASSWORD\" ping",
    "redis-cli info && ls -a /tmp/cachedir",
    "redis-cli --scan | grep -a sessionkey",
    "tar -a -cf backup.tar.gz notes",
    "nmcli dev wifi connect HomeNet password \"$WIFI_PASSWORD\"",
    '<input type="password" name="pw" value="">',
    "Authorization: Token <your token>",
    "machine api.example.com login deploy password $NETRC_PASSWORD",
    'password_label: "Your password here"',
    "token_limit: 4096",
    'password_reset_url: "https://example.com/reset"',
    'api_key_header = "X-Api-Key"',
    "TOKEN_EXPIRY=3600s",
    'keyboard_layout: "qwerty-us"',
    "https://example.com/cb?token=$TOKEN&user=bob",
    "password: &default_password",
    "defaults:\n  key: &base\n    retries: 3",
    "podman login -p $REG_PASS quay.io",
    "ssh -p 2222 deploy@host, then login as root",
    "the secret is out: we ship on Monday",
    "secret_sauce_recipe_for_success is a function name",
    'ssh-keygen -t ed25519 -N "" -f deploy_key',
    "ssh-keygen -N \"$KEY_PASSPHRASE\" -f key",
    "openssl rsa -passin env:KEY_PASS -in key.pem",
    "ls -N /tmp && grep -k pattern file",
    "htpasswd -c .htpasswd admin",
    "echo done | sudo tee -a /etc/hosts",
    "echo \"$SUDO_PASSWORD\" | sudo -S ls",
    "The openssl cert is self-signed, so call it with `curl -k https://localhost:8443/health`",
    "run `ssh-keygen -t ed25519` and then search with `grep -P 'foo.*bar' src/`",
    "Generated with ssh-keygen. Next: rsync -P big.tar host:/srv/",
    "openssl x509 -in c.pem (then curl -k https://localhost:8443)",
    "openssl x509 -noout -text -in c.pem && curl -k https://localhost",
    "openssl s_client -connect example.com:443 -k",
    "use htpasswd -b to pass the password",
    "I used ssh-keygen and rsync -P files",
    "ssh-keygen docs say use -P for the old passphrase",
    "the keytool manual lists -storepass and -keypass",
    "ssh-keygen [-N new_passphrase] [-P old_passphrase] [-f output_keyfile]",
    "keytool -list [-storepass arg] [-keystore keystore]",
    "openssl enc -k password: the password is read from the next argument",
    "With ssh-keygen you can pass -N newpassphrase to skip the prompt",
    "ssh-keygen docs say use -P for the old passphrase",
    "openssl req -new -key k.pem -out c.csr",
    "ls -Nlh /tmp && ssh-keygen -lf key.pub",
    "the keytool -new option sets a new password",
    'ssh-keygen -t ed25519 -C "ci -Nightly2 runner" -f k',
    "ssh-keygen -C 'deploy key -Prod2 server' -f k",
]


@pytest.mark.parametrize("name,text,frags", FORMS + PROVIDER_FORMS + RUN_FORMS,
                         ids=[f[0] for f in FORMS + PROVIDER_FORMS + RUN_FORMS])
def test_each_new_form_is_redacted(name, text, frags):
    out = redact(text)
    assert "[REDACTED:" in out, out
    assert not any(f in out for f in frags), out


@pytest.mark.parametrize("text", KEEP)
def test_new_look_alikes_are_kept_verbatim(text):
    assert redact(text) == text


def _bytes_under(root) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


@pytest.mark.slow  # every form indexed, searched, shown, served over MCP and recalled by the hook
def test_no_new_form_survives_anywhere(session_builder, backscroll_home, backscroll_index, monkeypatch):
    from backscroll.integrations import hooks
    from backscroll.integrations.mcp_tools import Tools
    from backscroll.retrieval import judgement

    # (what the hook injects is checked for every form: its judgement, sure only on real vectors, is taken as said)
    monkeypatch.setattr(judgement, "answered", lambda *_a, **_k: True)

    def words(name: str) -> str:  # words only this form's session holds, telling enough for the hook to recall it
        tag = name.replace("-", "")
        return f"{tag} {tag[::-1]} {tag}zeta"

    sessions = []
    for i, (name, text, _f) in enumerate(FORMS + PROVIDER_FORMS):
        s = session_builder.claude(project=f"leak{i}")
        s.summary(f"{name} {text}")  # a title
        s.user(f"planted {words(name)} here: {text}")
        call = s.tool_use("Bash", {"command": f"cat config && echo {text}", "description": text})
        s.tool_result(call, f"planted output {text}")
        s.assistant(f"the {name.replace('-', '')} value was {text}")
        sessions.append(s)
    backscroll_index()  # (with vectors: the hook judges as a hybrid search does)
    runner = CliRunner()
    out = []
    recalled = []
    for name, _t, _f in FORMS + PROVIDER_FORMS:
        q = f"planted {name.replace('-', '')}"
        for extra in ([], ["--include-echoes", "--content-type", "tool"]):
            r = runner.invoke(app, ["search", q, "--json", "--max-chars", "0", "--mode", "lexical", *extra])
            out.append(r.stdout + r.stderr)
        out.append(Tools(str(backscroll_home.data)).call("search", {"query": q, "mode": "lexical"}).text())
        raw = json.dumps({"session_id": f"probe-{name}", "prompt": f"what was the {words(name)} value planted"})
        injected = hooks.run("claude", "prompt", raw.encode(), backscroll_home.config()) or ""
        if words(name).split()[1] in injected:
            recalled.append(name)
        out.append(injected)
    for s in sessions:
        out.append(runner.invoke(app, ["show", s.session_id, "--json", "--full"]).stdout)
    out.append(runner.invoke(app, ["list", "--json", "--limit", "500"]).stdout)
    blob = "\n".join(out)
    data = _bytes_under(backscroll_home.data)
    leaked = [name for name, _t, frags in FORMS + PROVIDER_FORMS if any(f in blob for f in frags)]
    stored = [name for name, _t, frags in FORMS + PROVIDER_FORMS  # (the lexical index keeps its terms lowercased)
              if any(f.encode() in data or f.lower().encode() in data for f in frags)]
    assert recalled == [name for name, _t, _f in FORMS + PROVIDER_FORMS], "the hook recalled each form's session"
    assert leaked == [], f"in outputs: {leaked}"
    assert stored == [], f"under the data dir (store, lexical index terms): {stored}"
