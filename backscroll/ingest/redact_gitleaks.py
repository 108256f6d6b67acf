"""Provider secret formats from gitleaks' maintained rule set, loaded as data into the redaction engine.

``gitleaks.toml`` beside this module is gitleaks' default configuration, taken from a PyPI package by
``scripts/gitleaks_rules.py``. Each of its rules with keywords becomes a ``Rule``: the keywords are
its markers (gitleaks' own prefilter), the regex is translated from Go's RE2 syntax (a flag group in
the middle of a pattern, ``\\z``, POSIX classes), the secret is its ``secretGroup`` (else the first
group), and the check is gitleaks' (the entropy floor, the rule's and the global allow-lists and
stopwords). Left out, with the reason in ``LEFT_OUT``: rules our own table covers better (private
keys, JWTs, the generic keyword=value rule), rules gitleaks applies to some file paths only (a session
has none), keywords too short to gate anything, and patterns Python cannot run in linear time. The
optional left context of gitleaks' keyword rules is dropped: it never holds the secret.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from importlib import resources

from backscroll.ingest.redact_checks import Matched, Rule

# Ours are tuned to session text (look-alikes kept), or gitleaks' rule has no prefix to gate it.
OURS = frozenset({"generic-api-key", "private-key", "jwt", "jwt-base64", "curl-auth-header", "curl-auth-user"})
_POSIX = {"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "xdigit": "0-9a-fA-F", "upper": "A-Z",
          "lower": "a-z", "space": r"\s", "word": r"\w", "punct": r"!-/:-@\[-`{-~"}
# An unbounded run, then something that may also match it: quadratic in Python's backtracking engine.
_NESTED = re.compile(r"[*+}]\)?[*+{]|\([^()]*[*+][^()]*\)[*+{]")

MIN_KEYWORD = 3  # a keyword such as "s." is in nearly every text: it gates nothing
LEFT_OUT: dict[str, str] = {}


# The optional context gitleaks matches left of a keyword: it never holds the secret, and in Python's
# engine it makes every position of a text try fifty characters before the keyword.
_LEFT_CONTEXT = re.compile(r"^(\(\?i\))?\[\\w\.-\]\{0,\d+\}\?")


def translate(regex: str) -> str:
    """A gitleaks (Go RE2) pattern in Python's syntax (without the optional left context)."""
    out = _LEFT_CONTEXT.sub(lambda m: m.group(1) or "", regex).replace(r"\z", r"\Z")
    out = re.sub(r"\[:(\w+):\]", lambda m: _POSIX.get(m.group(1), m.group(0)), out)
    flag = out.find("(?i)", 1)
    while flag > 0:  # Go: the flag holds to the end of its group; Python: only at the start, or scoped
        end = _group_end(out, flag + 4)
        out = f"{out[:flag]}(?i:{out[flag + 4:end]}){out[end:]}"
        flag = out.find("(?i)", flag + 1)
    return out


def _group_end(pattern: str, i: int) -> int:
    """Where the group around position ``i`` closes (the pattern's end at the top level)."""
    depth, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1: i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return len(pattern)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character, as gitleaks computes it."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _allow(spec: dict) -> tuple[list[re.Pattern], tuple[str, ...], str]:
    patterns = []
    for r in spec.get("regexes", []):
        try:
            patterns.append(re.compile(translate(r), re.ASCII))
        except (re.error, ValueError):
            continue
    return patterns, tuple(w.lower() for w in spec.get("stopwords", [])), spec.get("regexTarget", "secret")


def _check(floor: float, group: int, allows: list[tuple[list[re.Pattern], tuple[str, ...], str]]):
    def check(m: Matched) -> bool:
        secret = m.group(group) or ""
        if not secret or "REDACTED" in secret or entropy(secret) < floor:
            return False
        low = secret.lower()
        for patterns, stopwords, target in allows:
            if any(w in low for w in stopwords):
                return False
            subject = m.group(0) if target in ("match", "line") else secret
            if any(p.search(subject) for p in patterns):
                return False
        return True

    return check


def load() -> list[Rule]:
    """gitleaks' rules with keywords, as engine rules, in file order."""
    text = resources.files("backscroll.ingest").joinpath("gitleaks.toml").read_text(encoding="utf-8")
    config = tomllib.loads(text)
    global_allow = _allow(config.get("allowlist", {}))
    rules: list[Rule] = []
    for spec in config.get("rules", []):
        rid, regex = spec.get("id", ""), spec.get("regex")
        keywords = [k.lower() for k in spec.get("keywords") or [] if len(k) >= MIN_KEYWORD]
        if rid in OURS or not regex or not keywords or spec.get("path"):
            LEFT_OUT[rid] = ("ours" if rid in OURS else "only for some file paths" if spec.get("path")
                             else "no keywords (or only keywords too short to gate it) or no regex")
            continue
        try:
            pattern = re.compile(translate(regex), re.ASCII)  # RE2's \w, \d, \b are ASCII
        except (re.error, ValueError) as exc:
            LEFT_OUT[rid] = f"does not translate: {exc}"
            continue
        if _NESTED.search(regex):
            LEFT_OUT[rid] = "not linear in Python"
            continue
        group = spec.get("secretGroup", 1 if pattern.groups else 0)
        allows = [global_allow, *(_allow(a) for a in spec.get("allowlists", []))]
        rules.append(Rule(rid, tuple(keywords), pattern, group,
                          _check(float(spec.get("entropy", 0)), group, allows), lower=True))
    return rules
