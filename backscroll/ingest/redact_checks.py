"""What tells a secret from a look-alike: the shapes a rule's check reads of a match (``Matched``, ``Rule``)
and the checks themselves (entropy, character classes, placeholders, what the line says). Pure; the rules
that use them are ``redact_rules``.
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


def classes(s: str) -> int:
    return (any(c.islower() for c in s) + any(c.isupper() for c in s) + any(c.isdigit() for c in s))


def _wordy(s: str) -> bool:
    """Words and numbers joined by ``-``/``_`` (a package or a slug), not a random key body."""
    return all(part.isalpha() or part.isdigit() or not part for part in re.split(r"[-_]", s))


def random_body(s: str) -> bool:
    """A key body: letters and digits mixed, not words joined by dashes."""
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s) and not _wordy(s)


def body(group: int | str, minimum: int = 0) -> Callable[[Matched], bool]:
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


_LOWER_WORD = re.compile(r"[a-z]{8,}+")


def _env_literal(m: Matched, ident: str, kw: str, value: str) -> bool:
    """``DB_PASSWORD=correcthorse`` in a ``.env`` file, a shell or a compose file's list: an upper-case name that
    ends in password or secret takes its value literally (a variable would be ``$NAME``), so a lowercase word is
    the password, not code. Not ``NAME: value`` (YAML and prose: ``PASSWORD: disabled``), nor a name that goes on
    (``PASSWORD_POLICY``)."""
    if kw not in ("password", "passwd", "passphrase", "secret") or m.group("sfx") or not ident.isupper():
        return False
    return m.string[m.span("kw")[1]:m.span("v")[0]] == "=" and _LOWER_WORD.fullmatch(value) is not None


def plausible_assignment(m: Matched) -> bool:
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
    if value[0] in "$%<{*#&" or value.startswith(("process.env", "os.environ", "env.", "ENV[", "secrets.")):
        return False
    if kw in ("pass", "pwd", "token", "key") and not boundary and not any(low.endswith(c + kw) for c in _KEY_COMPOUNDS):
        return False
    if low.endswith(("_id", "_name", "_file", "_path", "_type", "_url")):
        return False
    if not quoted and _env_literal(m, ident, kw, value):
        return True
    if m.group("sfx"):  # a name that goes on past its keyword: only a value that looks like a secret
        name = (low + m.group("sfx")).lower()
        return (not name.endswith(("_id", "_name", "_file", "_path", "_type", "_url")) and len(value) >= 8
                and " " not in value and (random_body(value) or classes(value) >= 3))
    if not quoted:
        if _CODE_LIKE.fullmatch(value) or value.isdigit():
            return False
        if len(value) < 6:
            return False
    if kw in _STRONG or kw in ("pass", "pwd"):
        if quoted or any(c.isdigit() for c in value) or any(not c.isalnum() and c not in "-_." for c in value):
            return True
        return classes(value[1:]) >= 2  # mixed case past the first letter
    if kw == "token" or (kw == "key" and any(prefix.endswith(c) for c in _KEY_COMPOUNDS)):
        return len(value) >= 8 and (random_body(value) or classes(value) >= 3) and " " not in value
    # a bare ``key`` or ``cache_key``: only a value that is clearly a random token
    return (len(value) >= 20 and _TOKEN_CHARS.fullmatch(value) is not None and random_body(value)
            and classes(value) >= 2)


def bearer(m: Matched) -> bool:
    v = m.group(2)
    return "REDACTED" not in v and (random_body(v) or classes(v) >= 3 or v.count(".") == 2)


def basic(m: Matched) -> bool:
    import base64
    import binascii

    v = m.group(2)
    try:
        decoded = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def pem(m: Matched) -> bool:
    # PuTTY keys have no ``body`` group; a private key without its END marker leaves it unmatched.
    body = (m.groupdict().get("body") if isinstance(m, re.Match) else None) or m.group("lines")
    return sum(c.isalnum() or c in "+/=" for c in body) >= 32 and random_body(re.sub(r"\\++[rn]|\s", "", body))


def _secret_word(v: str) -> bool:
    """A value given after ``password`` without ``=``: a secret, not a word of prose or a variable."""
    return (len(v) >= 6 and v.lower() not in _PLACEHOLDER_WORDS and v[0] not in "$%<{*#[" and "REDACTED" not in v
            and (random_body(v) or classes(v) >= 3 or (classes(v) >= 2 and any(not c.isalnum() for c in v))))


def password_word(m: Matched) -> bool:
    return _secret_word(m.group("pw"))


def html_password(m: Matched) -> bool:
    """The ``value`` of an ``<input type="password">``."""
    end = m.span()[1]
    tag_end = m.string.find(">", end)
    tag = m.string[m.start(): tag_end if tag_end >= 0 else end].lower()
    return re.search(r"type\s*=\s*[\"']?password", tag) is not None and bool(m.group(3).strip())


def userinfo_token(m: Matched) -> bool:
    v = m.group(2)
    return random_body(v) and classes(v) >= 2


def split_aws(m: Matched) -> bool:
    return len(m.group(2)) + len(m.group(3)) == 16 and random_body(m.group(2) + m.group(3))


def on_line(m: Matched, words: tuple[str, ...]) -> bool:
    """One of ``words`` is earlier on the match's line (at most 200 characters back)."""
    line_start = m.string.rfind("\n", max(0, m.start() - 200), m.start()) + 1
    before = m.string[max(line_start, m.start() - 200): m.start()].lower()
    return any(w in before for w in words) and m.group(3).lower() not in _PLACEHOLDER_WORDS


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NEXT_COMMAND = re.compile(r"\|\|?|;|&&|(?<!\S)&(?!\S)")  # a pipe, ``;``, ``&&``, ``||``, a lone ``&`` (not ``2>&1``)


def _line_before(m: Matched) -> str:
    """The command line before the match (lines continued with ``\\`` joined), at most 400 characters of it."""
    return re.sub(r"\\\r?\n", " ", m.string[max(0, m.start() - 400): m.start()]).rsplit("\n", 1)[-1]


def in_command(m: Matched, command: str) -> bool:
    """The match is an option of ``command``: it follows it in the command line (lines continued with ``\\``
    joined), with no pipe, ``;``, ``&&`` or ``&`` between them outside quotes."""
    before = _line_before(m)
    named = list(re.finditer(rf"(?<![\w./-]){re.escape(command)}(?![\w-])", before))
    if not named:
        return False
    between = _QUOTED.sub("", before[named[-1].end():])
    return not _NEXT_COMMAND.search(between) and m.group(3).lower() not in _PLACEHOLDER_WORDS


def plain_value(m: Matched, group: int | str = 3) -> bool:
    """A value given as itself: not a variable, a template, a redirect or another option, nor a placeholder."""
    value = m.group(group)
    return (bool(value) and value[0] not in "-$%{<" and value.lower().rstrip(":,.") not in _PLACEHOLDER_WORDS
            and not value.endswith((":", ",")))


def reads_as_password(value: str) -> bool:
    """A value that prose could not hold as a word: letters and digits, or longer than a word with a symbol."""
    return classes(value) >= 2 or (len(value) >= 8 and not value.isalnum())


def htpasswd_batch(m: Matched) -> bool:
    """htpasswd's password on the command line (``-b``): after the file and the user, or the user alone
    with ``-n`` (nothing written)."""
    flags = m.group("flags")
    given = len(re.findall(r"'[^'\n]*'|\"[^\"\n]*\"|\S+", m.group("args")))
    return "b" in flags and given == (1 if "n" in flags else 2) and plain_value(m, "pw")


# Where a command starts: a line, or after a shell separator, a backtick or ``$(``, behind a prompt's ``$``,
# ``sudo``, ``env``, ``time`` or variable assignments
_RUN_AT = re.compile(r"(?:^|[;&|`(])[ \t]*(?:\$[ \t]+)?(?:(?:sudo|env|time|nohup|exec|command)(?:[ \t]+-\S+)*[ \t]+"
                     r"|\w+=\S*[ \t]+)*$")
# What ends the arguments of a command in prose: a backtick, a parenthesis, a sentence's punctuation
_NOT_ARGUMENTS = re.compile(r"[`()]|[.,;:!?](?:\s|$)")


def starts_a_command(m: Matched) -> bool:
    """The match is where a command starts (``_RUN_AT``), not a mention in prose."""
    return _RUN_AT.search(_line_before(m)) is not None


def run_as(m: Matched, command: str, then: re.Pattern | None = None, anywhere: bool = False,
           quoted: bool = True) -> bool:
    """The match (group 3) is a password given to ``command``: where the command is run (it starts a command,
    and no shell separator outside quotes lies between them), any plain value; where prose names it (or, with
    ``anywhere``, where it is not named at all: its option is its own), one that reads as a password and no
    backtick, parenthesis or sentence's punctuation between. ``then`` must follow its name when given; without
    ``quoted``, a match inside a quoted argument of the command is its words (``ssh-keygen -C "ci -Nightly runner"``),
    though the whole command may be quoted (``bash -c "ssh-keygen -N …"``)."""
    value = m.group(3)
    if not plain_value(m):
        return False
    before = _line_before(m)
    named = list(re.finditer(rf"(?<![\w.-]){re.escape(command)}(?![\w-])", before))
    if not named:
        return anywhere and reads_as_password(value)
    if then is not None and not then.match(before, named[-1].end()):
        return False
    between = _QUOTED.sub("", before[named[-1].end():])
    if _NEXT_COMMAND.search(between) or not quoted and (between.count('"') % 2 or between.count("'") % 2):
        return False
    ahead = re.sub(r"\S*/$", "", before[:named[-1].start()])  # (``/usr/bin/ssh-keygen``)
    inline = ahead.rstrip().endswith(("`", "$(")) and re.search(r"[`)]", between)  # (its inline code closed)
    run = _RUN_AT.search(ahead) is not None and not inline and _arguments(between)
    return run or (not _NOT_ARGUMENTS.search(between) and reads_as_password(value))


def _arguments(between: str) -> bool:
    """What follows a command's name reads as its arguments: options, their values, paths and files, not the
    plain words of a sentence (``ssh-keygen docs say use -P for …``)."""
    words = between.split()
    return all(w.startswith("-") or (n and words[n - 1].startswith("-")) or re.search(r"[/.=:@$`0-9]", w)
               for n, w in enumerate(words))
