"""Secret redaction at ingest: API keys, tokens, private keys and passwords never reach the store.

Each secret is replaced by ``[REDACTED:<kind>]`` before a record is stored, so the lexical index,
the embeddings, search output and ``show`` never hold it. Only counts per kind are kept.

This module is the engine: which rules a text runs (an index of their markers), applying them,
passwords in URLs and ``\\u0041``-escaped keys, the counting ``Redactor``. The secret forms
themselves are ours (``backscroll.ingest.redact_rules``) and gitleaks' (``redact_gitleaks``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from backscroll.ingest import redact_gitleaks
from backscroll.ingest.redact_checks import Matched, Rule, random_body
from backscroll.ingest.redact_rules import RULES as OWN_RULES
from backscroll.ingest.redact_shown import may_hide, shown, without_terminal_codes


def decodes_to_a_secret(m: Matched) -> bool:
    """A base64 blob that decodes to text holding a secret (a key ``echo … | base64`` printed)."""
    import base64
    import binascii

    v = m.group(0) or ""
    try:
        decoded = base64.b64decode(v + "=" * (-len(v) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return "[REDACTED:" in redact(decoded)


# Ours first (tuned to session text), then the provider formats of gitleaks' maintained rule set. The
# base64 rule's check runs the whole redactor on what the blob spells: it is given here, by the engine.
RULES: list[Rule] = [replace(r, check=decodes_to_a_secret) if r.kind == "base64-secret" else r
                     for r in (*OWN_RULES, *redact_gitleaks.load())]

__all__ = ["RULES", "Matched", "Redactor", "Rule", "decodes_to_a_secret", "random_body", "redact", "redact_cut_end",
           "redact_optional"]


# -- passwords in URLs -----------------------------------------------------------------------

_URL_HOST = re.compile(r"@([^@/?#]*+)(?=[/?#]|$)")  # an ``@`` followed by what can be a host
_DB_SCHEMES = re.compile(r"(?i)(?:postgres(?:ql)?|psql|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|"
                         r"mssql|sqlserver|clickhouse|cockroachdb|oracle|db2|snowflake|jdbc:\w+)")


def _url_password(text: str, counts: Counter | None) -> str:
    """``scheme://user:PASSWORD@host``: the password may hold ``/`` or ``@`` (the host holds neither)."""
    if "://" not in text:
        return text

    def repl(m: re.Match) -> str:
        scheme, tail = m.group("scheme"), m.group("tail")
        ats = [(at.start(), at.group(1)) for at in _URL_HOST.finditer(tail)]
        if not ats:
            return m.group(0)
        hosts = [at for at in ats if "." in at[1] or ":" in at[1] or at[1] == "localhost"]
        password = tail[: (hosts[-1] if hosts else ats[0])[0]]
        if not password or password.startswith(("$", "{", "<", "%", "*", "[REDACTED")) or \
                re.match(r"\d{1,5}(?:/|$)", password) or "://" in password:
            return m.group(0)  # a port, a placeholder, or already redacted
        kind = "database-password" if _DB_SCHEMES.fullmatch(scheme.split("+")[0]) or _DB_SCHEMES.fullmatch(scheme) \
            else "url-password"
        if counts is not None:
            counts[kind] += 1
        return m.group("head") + f"[REDACTED:{kind}]" + tail[len(password):]

    return _URL.sub(repl, text)


_URL = re.compile(r"(?<![A-Za-z0-9+.\-])(?P<head>(?P<scheme>[A-Za-z][A-Za-z0-9+.\-:]{1,30})://"
                  r"[^\s:/@\"'<>`]{0,128}:)(?P<tail>[^\s\"'<>`]{1,1024}+)")


_GROUP_V = ("v1", "v2", "v3")

# -- which rules a text runs -----------------------------------------------------------------
# marker -> the rules it gates (by index, so that they run in order): cased markers are looked for in the
# text, lowercase ones in the lowercased text.
_CASED_MARKERS: dict[str, list[int]] = {}
_LOWER_MARKERS: dict[str, list[int]] = {}
for _i, _r in enumerate(RULES):
    for _m in _r.markers:
        (_LOWER_MARKERS if _r.lower else _CASED_MARKERS).setdefault(_m, []).append(_i)
# Every marker is found in one pass over the text (the lowercase ones, ours and gitleaks' keywords, ~300,
# over the lowercased text): Aho-Corasick, not a substring or character test each.
class _Markers:
    """Which rules the markers found in a text gate (``ahocorasick_rs``: overlapping matches, in Rust)."""

    def __init__(self, markers: dict[str, list[int]]):
        from ahocorasick_rs import AhoCorasick

        self.rules = [tuple(rules) for rules in markers.values()]
        self.automaton = AhoCorasick(list(markers))

    def found(self, text: str, into: set[int]) -> None:
        for pattern, _start, _end in self.automaton.find_matches_as_indexes(text, overlapping=True):
            into.update(self.rules[pattern])


_LOWER_AUTOMATON = _Markers(_LOWER_MARKERS)
_CASED_AUTOMATON = _Markers(_CASED_MARKERS)
# The generic rule without ``(?i)``, for the lowercased text: its keywords are lowercase literals.
_LOWER_PATTERNS = {r.kind: re.compile(r.pattern.pattern.replace("(?i)", "", 1)) for r in RULES if r.group == "v"}


class _VMatch:
    """A match whose ``v`` group is whichever of the generic rule's value alternatives matched.

    The match may have been made on the lowercased text (same length); groups are read from ``string``.
    """

    __slots__ = ("m", "v", "string")

    def __init__(self, m: re.Match, string: str):
        self.m = m
        self.v = next(g for g in _GROUP_V if m.group(g) is not None)
        self.string = string

    def group(self, g: int | str = 0, /) -> str | None:
        start, end = self.m.span(self.v if g == "v" else g)
        return None if start < 0 else self.string[start:end]

    def start(self, g: int | str = 0, /) -> int:
        return self.m.start(self.v if g == "v" else g)

    def span(self, g: int | str = 0, /) -> tuple[int, int]:
        return self.m.span(self.v if g == "v" else g)


def _matches_at_markers(pattern: re.Pattern, low: str, markers: tuple[str, ...]):
    """``pattern.finditer(low)`` for a pattern that can only match where one of ``markers`` starts:
    it is tried only there (found by ``str.find``), not at every position of a long text."""
    starts = []
    for marker in markers:
        i = low.find(marker)
        while i >= 0:
            starts.append(i)
            i = low.find(marker, i + 1)
    end = 0
    for i in sorted(starts):
        if i >= end and (m := pattern.match(low, i)):
            end = m.end()
            yield m


def _apply_lower(rule: Rule, text: str, low: str, counts: Counter | None) -> str:
    """The generic rule, matched on the lowercased text (much faster than ``(?i)``), replaced in ``text``."""
    out, last = [], 0
    for raw in _matches_at_markers(_LOWER_PATTERNS[rule.kind], low, rule.markers):
        m = _VMatch(raw, text)
        if rule.check is not None and not rule.check(m):
            continue
        if counts is not None:
            counts[rule.kind] += 1
        start, end = m.span("v")
        out.append(text[last:start])
        out.append(f"[REDACTED:{rule.kind}]")
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _apply(rule: Rule, text: str, counts: Counter | None) -> str:
    kind, group, check = rule.kind, rule.group, rule.check

    def repl(raw: re.Match) -> str:
        m: Matched = _VMatch(raw, raw.string) if group == "v" else raw
        if check is not None and not check(m):
            return raw.group(0)
        if counts is not None:
            counts[kind] += 1
        if group == 0:
            return f"[REDACTED:{kind}]"
        start, end = m.span(group)
        s0 = raw.start()
        whole = raw.group(0)
        return whole[: start - s0] + f"[REDACTED:{kind}]" + whole[end - s0:]

    return rule.pattern.sub(repl, text)


_ESCAPED_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-+/=\\])[A-Za-z0-9_\-+/=.]*+"
                            r"\\u00[0-9a-fA-F]{2}(?:\\u00[0-9a-fA-F]{2}|[A-Za-z0-9_\-+/=.])*+")


def _unescape_tokens(text: str, counts: Counter | None) -> str:
    """A key written with ``\\u0041``-style escapes (JSON shown raw) is read as the key it spells."""
    def repl(m: re.Match) -> str:
        token = m.group(0)
        plain = re.sub(r"\\u00([0-9a-fA-F]{2})", lambda e: chr(int(e.group(1), 16)), token)
        redacted = _redact(plain, counts, escapes=False)
        return token if redacted == plain else redacted

    return _ESCAPED_TOKEN.sub(repl, text)


def _redact(text: str, counts: Counter | None, escapes: bool = True) -> str:
    if escapes and "\\u00" in text:
        text = _unescape_tokens(text, counts)
    if "://" in text:
        text = _url_password(text, counts)
    low = text.lower()
    found: set[int] = set()
    _CASED_AUTOMATON.found(text, found)
    _LOWER_AUTOMATON.found(low, found)
    for i in sorted(found):
        rule = RULES[i]
        before = text
        if rule.group == "v" and len(low) == len(text):
            text = _apply_lower(rule, text, low, counts)
        else:
            text = _apply(rule, text, counts)
        if text is not before:
            low = text.lower()
    return text


def _secrets(text: str) -> int:
    found: Counter = Counter()
    _redact(text, found)
    return sum(found.values())


def redact(text: str, counts: Counter | None = None) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``; ``counts`` gains one per secret. Pure.

    Secrets are looked for as the text is shown (``redact_shown``): when colour codes split one, the text is kept
    without its codes; when invisible or look-alike characters split or spell one, the tokens that hold it are kept
    as shown; and the whole secret is redacted."""
    plain = without_terminal_codes(text)
    if plain is not text and _secrets(plain):
        text = plain
    if may_hide(text):
        text = shown(text, _secrets)
    return _redact(text, counts)


# Random tails a cut secret's head is tried with (mixed case; upper case and digits, as AWS keys are; of several
# lengths, for the forms of a fixed length), then a host, for a URL's password
_PROBES = tuple(f"{tail[:n]}@host.example/x" for tail in ("Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8RiQm7Xk2Lp9Wz4",
                                                           "Q3EGRTLXK7PZ2M4NQ3EGRTLXK7PZ2M4NQ3EGRTLXK7PZ2M4N")
                for n in (2, 4, 6, 8, 12, 16, 24, 32, 48))
_LAST_TOKEN = re.compile(r"\S{4,}$")


def redact_cut_end(text: str, counts: Counter | None = None) -> str:
    """A text cut short (at the cap, by a store that redacted after cutting): its last token redacted when it is the
    head of a secret, which no rule matches once cut; the rules are asked whether, given a random tail, it would be
    one. Pure."""
    m = _LAST_TOKEN.search(text)
    if m is None or "[REDACTED" in m.group(0):
        return text
    if not any(_secrets(m.group(0) + probe) > _secrets(probe) for probe in _PROBES):
        return text
    if counts is not None:
        counts["cut-secret"] += 1
    return text[:m.start()] + "[REDACTED:cut-secret]"


def redact_optional(text: str | None, counts: Counter | None = None) -> str | None:
    return text if not text else redact(text, counts)


class Redactor:
    """A callable redactor that counts what it replaced, per kind, until ``take_counts``."""

    def __init__(self):
        self.counts: Counter = Counter()

    def __call__(self, text: str) -> str:
        return redact(text, self.counts)

    def take_counts(self) -> dict[str, int]:
        out = dict(self.counts)
        self.counts.clear()
        return out
