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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, overload


class Matched(Protocol):
    """What a rule's check reads of a match: an ``re.Match``, or the engine's ``_VMatch`` for the generic rule."""

    @property
    def string(self) -> str: ...
    @overload
    def group(self, /) -> Any: ...
    @overload
    def group(self, g: int | str, /) -> Any: ...
    def start(self, g: int | str = 0, /) -> int: ...
    def span(self, g: int | str = 0, /) -> tuple[int, int]: ...


@dataclass(frozen=True)
class Rule:
    kind: str
    markers: tuple[str, ...]  # one must be a substring of the text (of its lowercase when ``lower``)
    pattern: re.Pattern
    group: int | str = 0  # the group replaced: 0 = the whole match
    check: Callable[[Matched], bool] | None = None  # False: a look-alike, left as it is
    lower: bool = False


# -- checks ----------------------------------------------------------------------------------

def _classes(s: str) -> int:
    return (any(c.islower() for c in s) + any(c.isupper() for c in s) + any(c.isdigit() for c in s))


def _wordy(s: str) -> bool:
    """Words and numbers joined by ``-``/``_`` (a package or a slug), not a random key body."""
    return all(part.isalpha() or part.isdigit() or not part for part in re.split(r"[-_]", s))


def random_body(s: str) -> bool:
    """A key body: letters and digits mixed, not words joined by dashes."""
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s) and not _wordy(s)


def _body(group: int | str, minimum: int = 0) -> Callable[[Matched], bool]:
    return lambda m: len(m.group(group)) >= minimum and random_body(m.group(group))


_PLACEHOLDER_WORDS = frozenset((
    "none", "null", "nil", "true", "false", "undefined", "required", "optional", "string", "str", "bytes",
    "secret", "password", "token", "redacted", "example", "xxx", "your_password", "your-password",
    "yourpassword", "your_token", "your_api_key", "changeme", "placeholder", "hidden", "masked", "omitted",
))
_CODE_LIKE = re.compile(r"[A-Za-z_][A-Za-z_]*+(?:\.[A-Za-z_][A-Za-z_]*+)*+")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_\-]++")
_STRONG = ("password", "passwd", "passphrase", "secret", "credential", "credentials")
_KEY_COMPOUNDS = ("api", "secret", "access", "private", "account", "auth", "master", "signing", "encryption",
                  "client", "license", "app", "application", "service", "subscription", "webhook", "consumer",
                  "shared", "admin", "deploy", "storage", "primary", "secondary", "x-api", "openai", "anthropic",
                  "stripe", "sendgrid", "mailgun", "twilio", "google", "gemini", "groq", "mistral", "cohere")


def _identifier(m: Matched) -> str:
    """The name assigned to: the keyword and the identifier characters right before it."""
    s, end = m.string, m.start("kw")
    start = end
    while start > 0 and end - start < 64 and (s[start - 1].isalnum() or s[start - 1] in "_.-"):
        start -= 1
    return s[start:end] + m.group("kw")


def _plausible_assignment(m: Matched) -> bool:
    """``<name>=<value>`` where the name says secret and the value looks like one (not code)."""
    kw = m.group("kw").lower()
    ident = _identifier(m)
    low = ident.lower()
    prefix = low[: -len(kw)].rstrip("_-.")
    raw_prefix = ident[: -len(kw)]
    boundary = (not raw_prefix or not raw_prefix[-1].isalpha()
                or (raw_prefix[-1].islower() and m.group("kw")[0].isupper()))
    value = m.group("v")
    quoted = m.group("q1") is not None or m.group("q2") is not None
    if len(value) < 4 or value.lower() in _PLACEHOLDER_WORDS or "REDACTED" in value or len(set(value)) < 3:
        return False
    if value[0] in "$%<{*#" or value.startswith(("process.env", "os.environ", "env.", "ENV[", "secrets.")):
        return False
    if kw in ("pass", "pwd", "token", "key") and not boundary and not any(low.endswith(c + kw) for c in _KEY_COMPOUNDS):
        return False
    if low.endswith(("_id", "_name", "_file", "_path", "_type", "_url")):
        return False
    if not quoted:
        if _CODE_LIKE.fullmatch(value) or value.isdigit():
            return False
        if len(value) < 6:
            return False
    if kw in _STRONG or kw in ("pass", "pwd"):
        if quoted or any(c.isdigit() for c in value) or any(not c.isalnum() and c not in "-_." for c in value):
            return True
        return _classes(value[1:]) >= 2  # mixed case past the first letter
    if kw == "token" or (kw == "key" and any(prefix.endswith(c) for c in _KEY_COMPOUNDS)):
        return len(value) >= 8 and (random_body(value) or _classes(value) >= 3) and " " not in value
    # a bare ``key`` or ``cache_key``: only a value that is clearly a random token
    return (len(value) >= 20 and _TOKEN_CHARS.fullmatch(value) is not None and random_body(value)
            and _classes(value) >= 2)


def _bearer(m: Matched) -> bool:
    v = m.group(2)
    return "REDACTED" not in v and (random_body(v) or _classes(v) >= 3 or v.count(".") == 2)


def _basic(m: Matched) -> bool:
    import base64
    import binascii

    v = m.group(2)
    try:
        decoded = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _pem(m: Matched) -> bool:
    # PuTTY keys have no ``body`` group; a private key without its END marker leaves it unmatched.
    body = (m.groupdict().get("body") if isinstance(m, re.Match) else None) or m.group("lines")
    return sum(c.isalnum() or c in "+/=" for c in body) >= 32 and random_body(re.sub(r"\\++[rn]|\s", "", body))


def _secret_word(v: str) -> bool:
    """A value given after ``password`` without ``=``: a secret, not a word of prose or a variable."""
    return (len(v) >= 6 and v.lower() not in _PLACEHOLDER_WORDS and v[0] not in "$%<{*#[" and "REDACTED" not in v
            and (random_body(v) or _classes(v) >= 3 or (_classes(v) >= 2 and any(not c.isalnum() for c in v))))


def _password_word(m: Matched) -> bool:
    return _secret_word(m.group("pw"))


def _html_password(m: Matched) -> bool:
    """The ``value`` of an ``<input type="password">``."""
    end = m.span()[1]
    tag_end = m.string.find(">", end)
    tag = m.string[m.start(): tag_end if tag_end >= 0 else end].lower()
    return re.search(r"type\s*=\s*[\"']?password", tag) is not None and bool(m.group(3).strip())


def _userinfo_token(m: Matched) -> bool:
    v = m.group(2)
    return random_body(v) and _classes(v) >= 2


def _split_aws(m: Matched) -> bool:
    return len(m.group(2)) + len(m.group(3)) == 16 and random_body(m.group(2) + m.group(3))


def _on_line(m: Matched, words: tuple[str, ...]) -> bool:
    """One of ``words`` is earlier on the match's line (at most 200 characters back)."""
    line_start = m.string.rfind("\n", max(0, m.start() - 200), m.start()) + 1
    before = m.string[max(line_start, m.start() - 200): m.start()].lower()
    return any(w in before for w in words) and m.group(3).lower() not in _PLACEHOLDER_WORDS


# -- the rules -------------------------------------------------------------------------------

_B64 = r"A-Za-z0-9+/="
# base64 of the prefixes of keys (sk-, ghp, github_pat_, AKIA, ASIA, xox, glpat-, pypi-Ag, AIza)
_BASE64_PREFIXES = ("c2st", "Z2hw", "Z2l0aHViX3BhdF", "QUtJQ", "QVNJQ", "eG94", "Z2xwYXQt", "cHlwaS1BZ0", "QUl6YV")
_NL = r"[ \t]*+(?:\r?\n|(?:\\++r)?\\++n)[ \t]*+"  # a real line break, or one escaped at any depth (JSON in JSON)
_SEP = r"(?:" + _NL + r"|[ \t]++)"
_LINES = r"(?:" + _NL + "[" + _B64 + r"]{16,}+(?=[ \t]*+(?:\r?\n|(?:\\++r)?\\++n|$)))++"  # whole base64 lines

RULES: list[Rule] = [
    Rule("private-key", ("PRIVATE KEY",), re.compile(
        r"-----BEGIN (?P<algo>(?:[A-Z0-9]{1,12} ){0,3})PRIVATE KEY(?: BLOCK)?-----"
        r"(?:" + _NL + r"[A-Za-z\-]{1,30}: [^\n\\]{0,200})*+"  # Proc-Type / DEK-Info headers
        r"(?:(?P<body>(?:" + _SEP + "++[" + _B64 + r"]++)++)" + _SEP + r"?-----END (?P=algo)PRIVATE KEY(?: BLOCK)?-----"
        r"|(?P<lines>" + _LINES + "))"), check=_pem),  # no END marker (cut output): whole base64 lines only
    Rule("putty-private-key", ("Private-Lines:",), re.compile(
        r"(?<=Private-Lines: )\d{1,4}(?P<lines>" + _LINES + r")(?:" + _NL + r"Private-MAC: [0-9a-fA-F]++)?"),
         check=_pem),
    Rule("age-secret-key", ("AGE-SECRET-KEY-",), re.compile(r"AGE-SECRET-KEY-1[0-9A-Z]{58}")),
    Rule("anthropic-key", ("sk-ant-",),
         re.compile(r"(?<![A-Za-z0-9_\-])sk-ant-[a-z]{2,10}\d{0,3}-[A-Za-z0-9_\-]{20,}+"),
         check=lambda m: random_body(m.group(0)[7:])),
    Rule("openai-key", ("sk-",), re.compile(
        r"(?<![A-Za-z0-9_\-])sk-(?P<b>(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}+)(?<!-)"), check=_body("b")),
    Rule("stripe-live-key", ("_live_",), re.compile(
        r"(?<![A-Za-z0-9_])(?:sk|rk|pk)_live_(?P<b>[A-Za-z0-9]{16,}+)"), check=_body("b")),
    Rule("stripe-test-key", ("_test_",), re.compile(
        r"(?<![A-Za-z0-9_])(?:sk|rk)_test_(?P<b>[A-Za-z0-9]{16,}+)"), check=_body("b")),
    Rule("stripe-webhook-secret", ("whsec_",), re.compile(r"(?<![A-Za-z0-9_])whsec_(?P<b>[A-Za-z0-9+/=]{24,}+)"),
         check=_body("b")),
    Rule("aws-access-key", ("AKIA", "ASIA"),  # AIDA, AROA, ... name users and roles: not secrets
         re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])")),
    Rule("aws-access-key", ("AKIA", "ASIA"), re.compile(
        r"(?<![A-Za-z0-9])(AKIA|ASIA)([0-9A-Z]{0,15})(?:\r?\n|(?:\\r)?\\n)[ \t]{0,8}([0-9A-Z]{1,16})(?![A-Za-z0-9])"),
         check=_split_aws),
    Rule("aws-secret-key", ("awssecret", "aws_secret"), re.compile(
        r"(?i)(aws_?secret_?access_?key[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), 2,
         lower=True),
    Rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])")),
    Rule("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-"), re.compile(
        r"(?<![A-Za-z0-9_\-])gl(?:pat|dt|ptt|rt)-(?P<b>[A-Za-z0-9_\-]{20,}+)"), check=_body("b")),
    Rule("slack-token", ("xox",), re.compile(r"(?<![A-Za-z0-9_\-])xox[abeprs]-(?P<b>[A-Za-z0-9\-]{10,}+)"),
         check=lambda m: re.search(r"\d{6}", m.group("b")) is not None),  # team and user ids
    Rule("slack-token", ("xapp-",), re.compile(r"(?<![A-Za-z0-9_\-])xapp-(?P<b>\d-[A-Za-z0-9\-]{20,}+)"),
         check=_body("b")),
    Rule("slack-webhook", ("hooks.slack.com",), re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}+")),
    Rule("discord-webhook", ("discord",), re.compile(r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d{5,}/[A-Za-z0-9_\-]{20,}+")),
    Rule("npm-token", ("npm_",), re.compile(r"(?<![A-Za-z0-9_])npm_(?P<b>[A-Za-z0-9]{36})(?![A-Za-z0-9])"),
         check=_body("b")),
    Rule("pypi-token", ("pypi-",), re.compile(r"(?<![A-Za-z0-9_\-])pypi-AgE[A-Za-z0-9_\-]{50,}+")),
    Rule("huggingface-token", ("hf_",), re.compile(r"(?<![A-Za-z0-9_])hf_(?P<b>[A-Za-z]{34})(?![A-Za-z0-9])"),
         check=lambda m: _classes(m.group("b")) >= 2),
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
    Rule("dockerhub-token", ("dckr_pat_",), re.compile(r"(?<![A-Za-z0-9_])dckr_pat_[A-Za-z0-9_\-]{27,}+")),
    # (the literal first, then the look-behind: a pattern that starts with a literal is searched for fast)
    Rule("notion-token", ("ntn_",), re.compile(r"ntn_(?<![A-Za-z0-9_]ntn_)[A-Za-z0-9]{40,}+(?![A-Za-z0-9])"),
         check=lambda m: random_body(m.group(0))),
    Rule("notion-token", ("secret_",), re.compile(r"secret_(?<![A-Za-z0-9_]secret_)[A-Za-z0-9]{43}(?![A-Za-z0-9])"),
         check=lambda m: random_body(m.group(0))),
    Rule("jwt", ("eyJ",), re.compile(
        r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+")),
    Rule("bearer-token", ("earer", "EARER"), re.compile(
        r"(?i)((?<![A-Za-z0-9])bearer[ \t]{1,4})([A-Za-z0-9._~+/\-]{16,}+=*+)"), 2, check=_bearer),
    Rule("basic-auth", ("asic ", "ASIC "), re.compile(
        r"(?i)((?:authorization|auth)\\?[\"']?[ \t]{0,4}[:=][ \t]{0,4}\\?[\"']?basic[ \t]{1,4})"
        r"([A-Za-z0-9+/]{8,}+={0,2})"), 2, check=_basic),
    Rule("basic-auth", ("curl",),
         re.compile(r"((?<![\w-])(?:-u|--user)[ \t]{1,4}(['\"]?)[^\s:'\"]{1,64}:)([^\s'\"]{3,128})\2"),
         3, check=lambda m: _on_line(m, ("curl",))),
    Rule("database-password", ("mysql", "mariadb"), re.compile(r"([ \t]-p)(['\"]?)([^\s'\"]{3,128})\2(?=\s|$)"), 3,
         check=lambda m: _on_line(m, ("mysql", "mariadb")) and m.group(3)[0] != "-"),
    # credentials in the config files agents ``cat``: Docker's config.json and .dockerconfigjson, .npmrc,
    # .netrc (``password X``), kubeconfig's client keys
    Rule("basic-auth", ('"auth"', "_auth"), re.compile(
        r"((?:\\?\"auth\\?\"[ \t]{0,4}:[ \t]{0,4}\\?\"|(?<![A-Za-z0-9])_auth[ \t]{0,4}=[ \t]{0,4}))"
        r"([A-Za-z0-9+/]{8,}+={0,2})"), 2, check=_basic),
    Rule("docker-config", ("dockerconfigjson", "dockercfg"), re.compile(
        r"(\.?docker(?:configjson|cfg)\\?[\"']?[ \t]{0,4}:[ \t]{0,4}\\?[\"']?)([A-Za-z0-9+/]{20,}+={0,2})"), 2),
    Rule("private-key", ("key-data",), re.compile(
        r"((?<![A-Za-z0-9_-])client-key-data\\?[\"']?[ \t]{0,4}:[ \t]{0,4}\\?[\"']?)([A-Za-z0-9+/]{20,}+={0,2})"), 2),
    Rule("password", ("password", "Password", "PASSWORD", "passwd", "passphrase"), re.compile(
        # .netrc, nmcli, prose: ``password X``, ``the password is X``
        r"(?i)((?<![A-Za-z0-9_])pass(?:word|wd|phrase)(?:[ \t]{1,4}is|[ \t]{1,4}was)?[ \t]{1,4})"
        r"(?P<q>[\"']?)(?P<pw>[^\s\"'`,;]{6,128})(?P=q)(?![^\s\"'`,;])"), "pw", check=_password_word),
    Rule("password", ("sshpass",), re.compile(
        r"(sshpass(?:[ \t]{1,4}-[a-zA-Z])*[ \t]{1,4}-p[ \t]{0,4})(?P<q>[\"']?)(?P<pw>[^\s\"']{3,128})(?P=q)"), "pw",
         check=lambda m: m.group("pw")[0] not in "$%{<"),
    Rule("password", ("value=",), re.compile(
        r"(<input\b[^>]{0,400}?\bvalue[ \t]{0,2}=[ \t]{0,2})([\"'])([^\"'\n<>]{1,256})\2", re.I), 3,
         check=_html_password),
    # tokens in headers and URLs
    Rule("bearer-token", ("uthorization", "UTHORIZATION"), re.compile(
        r"(?i)((?:authorization\\?[\"']?[ \t]{0,4}[:=][ \t]{0,4}\\?[\"']?)token[ \t]{1,4})"
        r"([A-Za-z0-9._~+/\-]{16,}+=*+)"), 2, check=_bearer),
    Rule("url-token", ("://",), re.compile(  # the literal first: searched for fast
        r"(://)([A-Za-z0-9_\-]{20,}+)(?=@[A-Za-z0-9.\-]{1,253}[./:])"), 2, check=_userinfo_token),
    Rule("aws-signature", ("X-Amz-", "x-amz-"), re.compile(
        r"(?i)([?&]x-amz-(?:signature|security-token)=)([A-Za-z0-9%+/=_\-]{20,}+)"), 2, lower=False),
    # a key printed through base64 (``echo $KEY | base64``): the base64 of its prefix starts the blob
    # (its check decodes the blob and redacts what it spells: the engine's, ``redact.decodes_to_a_secret``)
    Rule("base64-secret", _BASE64_PREFIXES, re.compile(
        r"(?<![A-Za-z0-9+/])(?:" + "|".join(_BASE64_PREFIXES) + r")[A-Za-z0-9+/]{20,}+={0,2}")),
    # generic: ``password=…``, ``"api_key": "…"``, ``export SECRET_KEY=…``, ``token: …`` (a match starts
    # where one of its markers does: it is tried only there, see redact._matches_at_markers)
    Rule("password-or-secret", ("pass", "pwd", "secret", "token", "key", "credential"), re.compile(
        r"(?i)(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?)"
        r"(?:\\?[\"'])?[ \t]{0,4}(?::=|=>|=|:(?!:))[ \t]{0,4}"
        r"(?:(?P<q1>\\?\")(?P<v1>[^\"\\\n]{1,256})\\?\"|(?P<q2>')(?P<v2>[^'\n]{1,256})'"
        r"|(?P<v3>[^\s\"'`,;&<>(){}\[\]\\]{1,256}))"), "v", check=_plausible_assignment, lower=True),
]
