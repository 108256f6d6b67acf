"""The secret forms redaction looks for: one ``Rule`` per form, its markers, pattern and check.

Rules are checked in order (``RULES``); a rule runs only on texts holding one of its literal markers
(a substring test), which keeps redaction cheap on the bulk of text that holds no secret. Every
pattern is linear-time: a run of token characters can start a match only at its first character
(a lookbehind of the same class), unbounded runs are possessive, and everything else is bounded.
A rule's ``check`` looks at the match (entropy, charset, placeholders) so that words such as
``sk-video-processing-toolkit`` or ``Bearer authentication_required`` are left alone. The engine
that runs them is ``backscroll.ingest.redact``.
"""

from __future__ import annotations

import re

from backscroll.ingest.redact_checks import (
    Rule,
    basic,
    bearer,
    body,
    classes,
    html_password,
    htpasswd_batch,
    in_command,
    on_line,
    password_word,
    pem,
    plain_value,
    plausible_assignment,
    random_body,
    reads_as_password,
    run_as,
    split_aws,
    starts_a_command,
    userinfo_token,
)

# -- the rules -------------------------------------------------------------------------------

_B64 = r"A-Za-z0-9+/="
# base64 of the prefixes of keys (sk-, ghp, github_pat_, AKIA, ASIA, xox, glpat-, pypi-Ag, AIza)
_BASE64_PREFIXES = ("c2st", "Z2hw", "Z2l0aHViX3BhdF", "QUtJQ", "QVNJQ", "eG94", "Z2xwYXQt", "cHlwaS1BZ0", "QUl6YV")
_NL = r"[ \t]*+(?:\r?\n|(?:\\++r)?\\++n)[ \t]*+"  # a real line break, or one escaped at any depth (JSON in JSON)
_SEP = r"(?:" + _NL + r"|[ \t]++)"
_LINES = r"(?:" + _NL + "[" + _B64 + r"]{16,}+(?=[ \t]*+(?:\r?\n|(?:\\++r)?\\++n|$)))++"  # whole base64 lines

# ``openssl enc``, or a cipher run as its own subcommand (``openssl aes-256-cbc``): where ``-k`` is a password
_OPENSSL_CIPHER = re.compile(r"[ \t]+-?(?:enc\b|aes|des|bf|cast|rc[245]|camellia|aria|sm4|chacha|seed|idea)")

RULES: list[Rule] = [
    Rule("private-key", ("PRIVATE KEY",), re.compile(
        r"-----BEGIN (?P<algo>(?:[A-Z0-9]{1,12} ){0,3})PRIVATE KEY(?: BLOCK)?-----"
        r"(?:" + _NL + r"[A-Za-z\-]{1,30}: [^\n\\]{0,200})*+"  # Proc-Type / DEK-Info headers
        r"(?:(?P<body>(?:" + _SEP + "++[" + _B64 + r"]++)++)" + _SEP + r"?-----END (?P=algo)PRIVATE KEY(?: BLOCK)?-----"
        r"|(?P<lines>" + _LINES + "))"), check=pem),  # no END marker (cut output): whole base64 lines only
    Rule("putty-private-key", ("Private-Lines:",), re.compile(
        r"(?<=Private-Lines: )\d{1,4}(?P<lines>" + _LINES + r")(?:" + _NL + r"Private-MAC: [0-9a-fA-F]++)?"),
         check=pem),
    Rule("age-secret-key", ("AGE-SECRET-KEY-",), re.compile(r"AGE-SECRET-KEY-1[0-9A-Z]{58}")),
    Rule("anthropic-key", ("sk-ant-",),
         re.compile(r"(?<![A-Za-z0-9_\-])sk-ant-[a-z]{2,10}\d{0,3}-[A-Za-z0-9_\-]{20,}+"),
         check=lambda m: random_body(m.group(0)[7:])),
    Rule("openai-key", ("sk-",), re.compile(
        r"(?<![A-Za-z0-9_\-])sk-(?P<b>(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}+)(?<!-)"), check=body("b")),
    Rule("stripe-live-key", ("_live_",), re.compile(
        r"(?<![A-Za-z0-9_])(?:sk|rk|pk)_live_(?P<b>[A-Za-z0-9]{16,}+)"), check=body("b")),
    Rule("stripe-test-key", ("_test_",), re.compile(
        r"(?<![A-Za-z0-9_])(?:sk|rk)_test_(?P<b>[A-Za-z0-9]{16,}+)"), check=body("b")),
    Rule("stripe-webhook-secret", ("whsec_",), re.compile(r"(?<![A-Za-z0-9_])whsec_(?P<b>[A-Za-z0-9+/=]{24,}+)"),
         check=body("b")),
    Rule("aws-access-key", ("AKIA", "ASIA"),  # AIDA, AROA, ... name users and roles: not secrets
         re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])")),
    Rule("aws-access-key", ("AKIA", "ASIA"), re.compile(
        r"(?<![A-Za-z0-9])(AKIA|ASIA)([0-9A-Z]{0,15})(?:\r?\n|(?:\\r)?\\n)[ \t]{0,8}([0-9A-Z]{1,16})(?![A-Za-z0-9])"),
         check=split_aws),
    Rule("aws-secret-key", ("awssecret", "aws_secret"), re.compile(
        r"(?i)(aws_?secret_?access_?key[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), 2,
         lower=True),
    Rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])")),
    Rule("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-"), re.compile(
        r"(?<![A-Za-z0-9_\-])gl(?:pat|dt|ptt|rt)-(?P<b>[A-Za-z0-9_\-]{20,}+)"), check=body("b")),
    Rule("slack-token", ("xox",), re.compile(r"(?<![A-Za-z0-9_\-])xox[abeprs]-(?P<b>[A-Za-z0-9\-]{10,}+)"),
         check=lambda m: re.search(r"\d{6}", m.group("b")) is not None),  # team and user ids
    Rule("slack-token", ("xapp-",), re.compile(r"(?<![A-Za-z0-9_\-])xapp-(?P<b>\d-[A-Za-z0-9\-]{20,}+)"),
         check=body("b")),
    Rule("slack-webhook", ("hooks.slack.com",), re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}+")),
    Rule("discord-webhook", ("discord",), re.compile(r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d{5,}/[A-Za-z0-9_\-]{20,}+")),
    Rule("npm-token", ("npm_",), re.compile(r"(?<![A-Za-z0-9_])npm_(?P<b>[A-Za-z0-9]{36})(?![A-Za-z0-9])"),
         check=body("b")),
    Rule("pypi-token", ("pypi-",), re.compile(r"(?<![A-Za-z0-9_\-])pypi-AgE[A-Za-z0-9_\-]{50,}+")),
    Rule("huggingface-token", ("hf_",), re.compile(r"(?<![A-Za-z0-9_])hf_(?P<b>[A-Za-z]{34})(?![A-Za-z0-9])"),
         check=lambda m: classes(m.group("b")) >= 2),
    Rule("google-api-key", ("AIza",), re.compile(r"(?<![A-Za-z0-9_\-])AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])")),
    Rule("google-oauth", ("GOCSPX-", "ya29."), re.compile(
        r"(?<![A-Za-z0-9_\-])(?:GOCSPX-[A-Za-z0-9_\-]{28}|ya29\.[A-Za-z0-9_\-]{30,}+)")),
    Rule("gcp-private-key-id", ("private_key_id",), re.compile(
        r"(private_key_id\\?[\"']?[ \t]{0,4}:[ \t]{0,4}\\?[\"']?)([0-9a-f]{40})"), 2),
    Rule("azure-storage-key", ("AccountKey=",), re.compile(r"(AccountKey=)([A-Za-z0-9+/]{40,}+={0,2})"), 2),
    Rule("azure-sas-signature", ("sig=",), re.compile(r"([?&]sig=)([A-Za-z0-9%+/]{30,}+(?:=|%3[Dd]){0,2})"), 2),
    Rule("twilio-key", ("SK",), re.compile(r"(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])")),
    Rule("sendgrid-key", ("SG.",), re.compile(r"(?<![A-Za-z0-9_\-])SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}")),
    Rule("mailgun-key", ("key-",), re.compile(r"(?<![A-Za-z0-9_\-])key-[0-9a-f]{32}(?![A-Za-z0-9])"),
         check=lambda m: random_body(m.group(0)[4:])),
    Rule("mailchimp-key", ("-us",), re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])")),
    Rule("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"), re.compile(
        r"(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])")),
    Rule("digitalocean-token", ("_v1_",), re.compile(
        r"(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])")),
    Rule("telegram-bot-token", (":AA",),
         re.compile(r"(?<![A-Za-z0-9])\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])")),
    Rule("vault-token", ("hvs.", "hvb."), re.compile(r"(?<![A-Za-z0-9_.\-])hv[sb]\.[A-Za-z0-9_\-]{24,}+"),
         check=lambda m: random_body(m.group(0)[4:])),
    Rule("grafana-token", ("glsa_", "glc_"), re.compile(
        r"(?<![A-Za-z0-9_])(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}+={0,2})")),
    Rule("sentry-token", ("sntry",), re.compile(r"(?<![A-Za-z0-9_])sntry[su]_[A-Za-z0-9+/=_]{32,}+")),
    Rule("databricks-token", ("dapi",), re.compile(r"(?<![A-Za-z0-9])dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])")),
    Rule("atlassian-token", ("ATATT",), re.compile(r"(?<![A-Za-z0-9])ATATT3[A-Za-z0-9_\-=]{30,}+")),
    Rule("linear-key", ("lin_api_",), re.compile(r"(?<![A-Za-z0-9_])lin_api_[A-Za-z0-9]{40}")),
    Rule("postman-key", ("PMAK-",), re.compile(r"(?<![A-Za-z0-9_\-])PMAK-[a-f0-9]{24}-[a-f0-9]{34}")),
    # Doppler: service tokens name their config (``dp.st.<config>.<40>``); personal, CLI, service-account,
    # SCIM and audit tokens do not
    Rule("doppler-token", ("dp.st.", "dp.pt.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."), re.compile(
        r"dp\.(?<![A-Za-z0-9_.\-]dp\.)(?:st\.(?:[a-z0-9_\-]{1,64}\.)?|pt\.|ct\.|sa\.|scim\.|audit\.)"
        r"(?P<b>[A-Za-z0-9]{40,44})(?![A-Za-z0-9])"), check=body("b")),
    Rule("dockerhub-token", ("dckr_pat_",), re.compile(r"(?<![A-Za-z0-9_])dckr_pat_[A-Za-z0-9_\-]{27,}+")),
    # (the literal first, then the look-behind: a pattern that starts with a literal is searched for fast)
    Rule("notion-token", ("ntn_",), re.compile(r"ntn_(?<![A-Za-z0-9_]ntn_)[A-Za-z0-9]{40,}+(?![A-Za-z0-9])"),
         check=lambda m: random_body(m.group(0))),
    Rule("notion-token", ("secret_",), re.compile(r"secret_(?<![A-Za-z0-9_]secret_)[A-Za-z0-9]{43}(?![A-Za-z0-9])"),
         check=lambda m: random_body(m.group(0))),
    Rule("jwt", ("eyJ",), re.compile(
        r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+")),
    Rule("bearer-token", ("earer", "EARER"), re.compile(
        r"(?i)((?<![A-Za-z0-9])bearer[ \t]{1,4})([A-Za-z0-9._~+/\-]{16,}+=*+)"), 2, check=bearer),
    Rule("basic-auth", ("asic ", "ASIC "), re.compile(
        r"(?i)((?:authorization|auth)\\?[\"']?[ \t]{0,4}[:=][ \t]{0,4}\\?[\"']?basic[ \t]{1,4})"
        r"([A-Za-z0-9+/]{8,}+={0,2})"), 2, check=basic),
    Rule("basic-auth", ("curl",),
         re.compile(r"((?<![\w-])(?:-u|--user)[ \t]{1,4}(['\"]?)[^\s:'\"]{1,64}:)([^\s'\"]{3,128})\2"),
         3, check=lambda m: on_line(m, ("curl",))),
    Rule("database-password", ("mysql", "mariadb"), re.compile(r"([ \t]-p)(['\"]?)([^\s'\"]{3,128})\2(?=\s|$)"), 3,
         check=lambda m: on_line(m, ("mysql", "mariadb")) and m.group(3)[0] != "-"),
    # a registry login's ``-p PASSWORD`` (docker, podman, buildah, skopeo, oras, helm registry)
    Rule("password", ("login",), re.compile(r"((?<![\w-])-p[ \t]{1,4})(['\"]?)([^\s'\"]{3,128})\2(?=\s|$)"), 3,
         check=lambda m: on_line(m, (" login",)) and m.group(3)[0] not in "-$%{<"),
    # redis-cli's ``-a PASSWORD`` (``--pass``)
    Rule("password", ("redis-cli",), re.compile(
        r"((?<![\w-])(?:-a|--pass)[ \t]{1,4})(['\"]?)([^\s'\"]{3,128})\2(?=\s|$)"), 3,
         check=lambda m: in_command(m, "redis-cli") and m.group(3)[0] not in "-$%{<"),
    # other tools' passwords on the command line: ssh-keygen's passphrases (``-N`` new, ``-P`` old), ``openssl
    # enc``'s ``-k`` and openssl's ``pass:`` sources, keytool's store and key passwords, htpasswd's ``-b``, and one
    # piped to sudo. A quoted value is whole; a bare one ends at shell syntax or a man page's bracket. Where the
    # tool is run, any value goes; where prose names it, one that reads as a password (``run_as``)
    Rule("password", ("ssh-keygen",), re.compile(
        r"((?<![\w-])-[NP][ \t]{0,4})(['\"]?)((?:(?<=['\"])[^'\"\n]{1,128}|(?<!['\"])[^\s'\"`;|&<>()\[\]]{3,128}))\2"
        r"(?=[\s;|&<>)`]|$)"), 3, check=lambda m: run_as(m, "ssh-keygen", quoted=False)),
    Rule("password", ("openssl",), re.compile(
        r"((?<![\w-])-k[ \t]{1,4})(['\"]?)((?:(?<=['\"])[^'\"\n]{1,128}|(?<!['\"])[^\s'\"`;|&<>()\[\]]{3,128}))\2"
        r"(?=[\s;|&<>)`]|$)"), 3, check=lambda m: run_as(m, "openssl", then=_OPENSSL_CIPHER)),
    Rule("password", ("pass:",), re.compile(
        r"((?<![\w-])-pass(?:in|out)?[ \t]{1,4}(['\"]?)pass:)"
        r"((?:(?<=['\"]pass:)[^'\"\n]{1,128}|(?<!['\"]pass:)[^\s'\"`;|&<>()\[\]]{1,128}))\2"),
         3, check=plain_value),
    Rule("password", ("storepass", "keypass"), re.compile(
        r"((?<![\w-])-(?:src|dest|new)?(?:store|key)pass[ \t]{1,4})(['\"]?)"
        r"((?:(?<=['\"])[^'\"\n]{1,128}|(?<!['\"])[^\s'\"`;|&<>()\[\]]{3,128}))\2(?=[\s;|&<>)`]|$)"), 3,
         check=lambda m: run_as(m, "keytool", anywhere=True)),
    Rule("password", ("keytool",), re.compile(  # (``-storepasswd``/``-keypasswd``'s ``-new``: keytool named)
        r"((?<![\w-])-new[ \t]{1,4})(['\"]?)"
        r"((?:(?<=['\"])[^'\"\n]{1,128}|(?<!['\"])[^\s'\"`;|&<>()\[\]]{3,128}))\2(?=[\s;|&<>)`]|$)"), 3,
         check=lambda m: run_as(m, "keytool")),
    Rule("password", ("htpasswd",), re.compile(
        r"(htpasswd(?P<flags>(?:[ \t]{1,4}-[A-Za-z]{1,6}(?:[ \t]{1,4}\d{1,3}(?=[ \t]))?)+)"
        r"(?P<args>(?:[ \t]{1,4}(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"|;&]+)){1,2})[ \t]{1,4})"
        r"(?P<q>['\"]?)(?P<pw>(?:(?<=['\"])[^'\"\n]{1,128}|(?<!['\"])[^\s'\"`;|&<>()\[\]]{3,128}))(?P=q)"
        r"(?=[\s;|&<>)`]|$)"), "pw",
         check=lambda m: htpasswd_batch(m) and (plain_value(m, "pw") if starts_a_command(m)
                                                 else reads_as_password(m.group("pw")))),
    Rule("password", ("sudo",), re.compile(
        r"((?<![\w-])(?:echo|printf)[ \t]{1,4}(?:-[a-zA-Z]{1,3}[ \t]{1,4})?(?:(['\"])%s\\n\2[ \t]{1,4})?)"
        r"(?P<q>['\"]?)(?P<pw>(?:(?<=['\"])[^'\"\n]{1,128}|(?<!['\"])[^\s'\"`;|&<>()]{3,128}))(?P=q)"
        r"(?=[ \t]{0,4}\|[ \t]{0,4}sudo[ \t]{1,4}(?:-[a-zA-Z]{1,4}(?:[ \t]{1,4}\w+)?[ \t]{1,4})*?"
        r"(?:-[a-zA-Z]{0,3}S|--stdin))"), "pw", check=lambda m: plain_value(m, "pw")),
    # credentials in the config files agents ``cat``: Docker's config.json and .dockerconfigjson, .npmrc,
    # .netrc (``password X``), kubeconfig's client keys
    Rule("basic-auth", ('"auth"', "_auth"), re.compile(
        r"((?:\\?\"auth\\?\"[ \t]{0,4}:[ \t]{0,4}\\?\"|(?<![A-Za-z0-9])_auth[ \t]{0,4}=[ \t]{0,4}))"
        r"([A-Za-z0-9+/]{8,}+={0,2})"), 2, check=basic),
    Rule("docker-config", ("dockerconfigjson", "dockercfg"), re.compile(
        r"(\.?docker(?:configjson|cfg)\\?[\"']?[ \t]{0,4}:[ \t]{0,4}\\?[\"']?)([A-Za-z0-9+/]{20,}+={0,2})"), 2),
    Rule("private-key", ("key-data",), re.compile(
        r"((?<![A-Za-z0-9_-])client-key-data\\?[\"']?[ \t]{0,4}:[ \t]{0,4}\\?[\"']?)([A-Za-z0-9+/]{20,}+={0,2})"), 2),
    Rule("password", ("password", "Password", "PASSWORD", "passwd", "passphrase"), re.compile(
        # .netrc, nmcli, prose: ``password X``, ``the password is X``
        r"(?i)((?<![A-Za-z0-9_])pass(?:word|wd|phrase)(?:[ \t]{1,4}is|[ \t]{1,4}was)?[ \t]{1,4})"
        r"(?P<q>[\"']?)(?P<pw>[^\s\"'`,;]{6,128})(?P=q)(?![^\s\"'`,;])"), "pw", check=password_word),
    # prose: ``the secret is X``, ``secret key X`` (an AWS secret access key pasted without its name)
    Rule("password-or-secret", ("secret", "Secret", "SECRET"), re.compile(
        r"(?i)((?<![A-Za-z0-9_])secret(?:[ \t]{1,4}(?:access[ \t]{1,4})?key)?(?:[ \t]{1,4}is|[ \t]{1,4}was)?[ \t]{1,4})"
        r"(?P<q>[\"']?)(?P<pw>[A-Za-z0-9+/_\-]{16,128}={0,2})(?P=q)(?![A-Za-z0-9+/=_\-])"), "pw",
         check=lambda m: random_body(m.group("pw")) and classes(m.group("pw")) >= 3),
    Rule("password", ("sshpass",), re.compile(
        r"(sshpass(?:[ \t]{1,4}-[a-zA-Z])*[ \t]{1,4}-p[ \t]{0,4})(?P<q>[\"']?)(?P<pw>[^\s\"']{3,128})(?P=q)"), "pw",
         check=lambda m: m.group("pw")[0] not in "$%{<"),
    Rule("password", ("value=",), re.compile(
        r"(<input\b[^>]{0,400}?\bvalue[ \t]{0,2}=[ \t]{0,2})([\"'])([^\"'\n<>]{1,256})\2", re.I), 3,
         check=html_password),
    # tokens in headers and URLs
    Rule("bearer-token", ("uthorization", "UTHORIZATION"), re.compile(
        r"(?i)((?:authorization\\?[\"']?[ \t]{0,4}[:=][ \t]{0,4}\\?[\"']?)token[ \t]{1,4})"
        r"([A-Za-z0-9._~+/\-]{16,}+=*+)"), 2, check=bearer),
    Rule("url-token", ("://",), re.compile(  # the literal first: searched for fast
        r"(://)([A-Za-z0-9_\-]{20,}+)(?=@[A-Za-z0-9.\-]{1,253}[./:])"), 2, check=userinfo_token),
    Rule("aws-signature", ("X-Amz-", "x-amz-"), re.compile(
        r"(?i)([?&]x-amz-(?:signature|security-token)=)([A-Za-z0-9%+/=_\-]{20,}+)"), 2, lower=False),
    # a key printed through base64 (``echo $KEY | base64``): the base64 of its prefix starts the blob
    # (its check decodes the blob and redacts what it spells: the engine's, ``redact.decodes_to_a_secret``)
    Rule("base64-secret", _BASE64_PREFIXES, re.compile(
        r"(?<![A-Za-z0-9+/])(?:" + "|".join(_BASE64_PREFIXES) + r")[A-Za-z0-9+/]{20,}+={0,2}")),
    # generic: ``password=…``, ``"api_key": "…"``, ``export SECRET_KEY=…``, ``token: …``, and names that go
    # on (``SECRET_KEY_BASE=…``, ``DATABASE_PASSWORD_DEV=…``) (a match starts where one of its markers does:
    # it is tried only there, see redact._matches_at_markers)
    Rule("password-or-secret", ("pass", "pwd", "secret", "token", "key", "credential"), re.compile(
        r"(?i)(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?)(?P<sfx>(?:[_-][a-z0-9]{1,16}){1,3})?"
        r"(?:\\?[\"'])?[ \t]{0,4}(?::=|=>|=|(?P<col>:)(?!:))[ \t]{0,4}"
        r"(?:(?P<q1>\\?\")(?P<v1>[^\"\\\n]{1,256})\\?\"|(?P<q2>')(?P<v2>[^'\n]{1,256})'"
        r"|(?P<v3>(?(col)[^\s\"'`,;<>(){}\[\]\\]|[^\s\"'`,;&<>(){}\[\]\\]){1,256}))"), "v",  # (& ends a value after =)
         check=plausible_assignment, lower=True),
]
