"""Secret redaction at ingest: API keys, tokens, private keys and passwords never reach the store.

Each secret is replaced by ``[REDACTED:<kind>]`` before a record is stored, so the lexical index,
the embeddings, search output and ``show`` never hold it. Only counts per kind are kept. Each
pattern runs only on texts holding one of its literal markers (a substring test), which keeps
redaction cheap on the bulk of text that holds no secret.
"""

from __future__ import annotations

import re
from collections import Counter

# (kind, literal markers of which one must be in the text, pattern, group to replace: 0 = the whole match).
# The markers are plain substring tests, so a text runs only the patterns it could match.
PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern, int]] = [
    ("private-key", ("PRIVATE KEY",), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)"), 0),
    ("anthropic-key", ("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}"), 0),
    ("openai-key", ("sk-",), re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}(?<!-)"), 0),
    ("stripe-live-key", ("_live_",), re.compile(r"\b(?:sk|rk|pk)_live_[A-Za-z0-9]{16,}"), 0),
    ("aws-access-key", ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA"),
     re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"), 0),
    ("aws-secret-key", ("secret", "SECRET", "Secret"),
     re.compile(r"(?i)(aws_?secret_?access_?key\W{0,4}[=:]\s*[\"']?)([A-Za-z0-9/+=]{30,})"), 2),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), 0),
    ("gitlab-token", ("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), 0),
    ("slack-token", ("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), 0),
    ("slack-webhook", ("hooks.slack.com",), re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{20,}"), 0),
    ("jwt", ("eyJ",), re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), 0),
    ("bearer-token", ("earer", "EARER"), re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/\-]{16,}=*)"), 2),
    ("database-password", ("://",), re.compile(
        r"(?i)\b((?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|"
        r"clickhouse|cockroachdb)(?:\+[a-z0-9]+)?://[^:/\s@]*:)([^@\s/]+)(@)"), 2),
]


_MARKERS = re.compile("|".join(re.escape(m) for _k, markers, _p, _g in PATTERNS for m in markers))


def redact(text: str, counts: Counter | None = None) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``; ``counts`` gains one per secret. Pure."""
    if not _MARKERS.search(text):
        return text
    for kind, markers, pattern, group in PATTERNS:
        if not any(m in text for m in markers):
            continue

        def repl(m: re.Match, kind=kind, group=group) -> str:
            if counts is not None:
                counts[kind] += 1
            if group == 0:
                return f"[REDACTED:{kind}]"
            start, end = m.span(group)
            s0 = m.start()
            whole = m.group(0)
            return whole[: start - s0] + f"[REDACTED:{kind}]" + whole[end - s0:]

        text = pattern.sub(repl, text)
    return text


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
