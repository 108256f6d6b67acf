"""Records stored under older redaction rules, redacted again where they lie.

The rules grow: a provider's new token form, colour codes that split a secret. A record stored before
may hold what today's rules find, and its log may be gone (agents prune theirs; the store is then the
only copy). Every record carries the version of the rules its strings were redacted with
(``records.redaction``); when the rules are newer, each older record is redacted again in place: its
text, cwd, tool name and project, and every session's title, cwd and project. A record that changed
is embedded again (with its session's units), goes to the team archive again on the next push
(``records.revised``), and the lexical index is rebuilt, so no term of the old text survives in its
files. The pass commits in batches: an interrupted one resumes where it stopped.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from backscroll.store.db import Store, content_hash
from backscroll.store.meta import REBUILD_LEXICAL

# The redaction rules' version: bump it whenever the rules (ours, gitleaks', the engine) find more, so that
# stores redact their records again. ``tests/ingest/test_redaction_upgrade.py`` holds the fingerprint of the rules
# it names and fails when they change without a new version. 0: before versions were kept; 2: names that go on
# past their keyword (``SECRET_KEY_BASE=…``); 3: a registry login's ``-p``, a value past ``&``, a secret in prose;
# 4: redis-cli's ``-a``; 5: ssh-keygen's, openssl's, keytool's and htpasswd's passwords, one piped to sudo;
# 6: those only where the tool is run, a value ending at shell syntax; 7: a quoted value whole, a weak one where
# the tool runs, openssl's cipher aliases; 8: ssh-keygen's passphrase attached to its flag (``-Nsecret``), keytool's
# ``-new``; 9: a secret disguised by zero-width, bidi or fullwidth characters (found as the text is shown), an
# upper-case name's lowercase password (``DB_PASSWORD=correcthorse``).
RULES_VERSION = 9
META_KEY = "redaction_version"  # the version the whole store was last redacted with, or OFF
OFF = "off"  # records were stored with redaction turned off (redacted once it is on again)
BATCH = 2000
_PROSE = ("text", "summary")
_SHOWN = ("text", "cwd", "tool_name", "project", "title")


def fingerprint() -> str:
    """A digest of every rule's kind, markers, pattern and secret group (ours, then gitleaks')."""
    from backscroll.ingest.redact import RULES

    digest = hashlib.sha256()
    for rule in RULES:
        digest.update(repr((rule.kind, rule.markers, rule.pattern.pattern, rule.pattern.flags, rule.group,
                            rule.lower, getattr(rule.check, "__qualname__", None))).encode())
    return digest.hexdigest()[:16]


@dataclass
class RedactedAgain:
    """What a pass did: records looked at and changed, sessions changed, secrets found per kind."""

    records: int = 0
    changed: int = 0
    sessions: int = 0
    secrets: Counter = field(default_factory=Counter)
    was_off: bool = False  # the store was last written with redaction off: that, not newer rules, is the cause

    def notes(self) -> list[str]:
        if not (self.changed or self.sessions):
            return []
        kinds = ", ".join(f"{k} {n}" for k, n in self.secrets.most_common())
        found = f"{self.changed:,} stored record(s) and {self.sessions:,} session(s) held secrets"
        done = f" ({kinds}); redacted in place, and the search index is rebuilt without them"
        if self.was_off:
            return [f"redaction was off when some records were stored, and is on for this command: {found}{done} "
                    "(to keep redaction off, set $BACKSCROLL_REDACT=0 for every command, or redact = false in the "
                    "config file)"]
        return [f"the redaction rules were updated: {found} they now find{done}"]


def is_current(store: Store) -> bool:
    return store.get_meta(META_KEY) == str(RULES_VERSION)


def behind(store: Store) -> bool:
    """Whether the store may hold records under older rules than today's: a read that cannot redact it first
    (a read-only store, a read while another process writes, a recall hook) redacts what it shows."""
    return store.get_meta(META_KEY) not in (str(RULES_VERSION), OFF)


def shown_rows(store: Store, rows: Iterable[Any]) -> list[Any]:
    """Rows (``sqlite3.Row`` or dicts) as a read shows them: redacted now in a store that is ``behind``."""
    rows = list(rows)
    if not rows or not behind(store):
        return rows
    from backscroll.ingest.redact import redact_optional

    return [{**dict(row), **{k: redact_optional(row[k]) for k in _SHOWN if k in row.keys()}} for row in rows]


def redact_again(store: Store) -> RedactedAgain:
    """Redact every record and session stored under older rules with today's. The caller holds the writer
    lock; a store already current costs one read."""
    if is_current(store):
        return RedactedAgain()
    done = RedactedAgain(was_off=store.get_meta(META_KEY) == OFF)
    from backscroll.ingest.redact import redact, redact_cut_end

    revision = store.meta_count("revision_seq") + 1

    def again(value: str | None) -> str | None:
        return redact(value, done.secrets) if value else value

    after = 0
    while batch := store.strings_before(RULES_VERSION, after, BATCH):
        changed, sessions = [], set()
        for rid, session_id, content_type, truncated, *strings in batch:
            new = [again(s) for s in strings]
            if truncated and new[0]:  # (cut before it was redacted, by an older version or with redaction off)
                new[0] = redact_cut_end(new[0], done.secrets)
            if new != strings:
                changed.append((rid, *new, content_hash(new[0] or "")))
                if content_type in _PROSE and new[0] != strings[0]:
                    sessions.add(session_id)
        store.begin()
        try:
            store.rewrite_records(changed, revision)
            store.forget_session_units(sorted(sessions))
            store.mark_redacted(RULES_VERSION, batch[0][0], batch[-1][0])
            if changed:
                _changed(store, revision)
            store.commit()
        except BaseException:
            store.rollback()
            raise
        done.records += len(batch)
        done.changed += len(changed)
        after = batch[-1][0]
    store.begin()
    try:
        for session_id, *strings in store.session_strings():
            new = [again(s) for s in strings]
            if new != strings:
                store.rewrite_session(session_id, new, revision)
                done.sessions += 1
        for leaf, title in store.leaf_title_strings():
            if (new_title := again(title)) != title:
                store.rewrite_leaf_title(leaf, new_title or "")
        if done.sessions:
            _changed(store, revision)
        if done.secrets:
            store.add_redactions(dict(done.secrets))
        store.set_meta(META_KEY, str(RULES_VERSION))
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return done


def _changed(store: Store, revision: int) -> None:
    """Something was redacted in place: the next push sends it again, the lexical index is built anew (a
    deleted document's terms stay in its segment's files), vectors no record uses are pruned."""
    store.set_meta("revision_seq", str(revision))
    store.set_meta("lexical_generation", REBUILD_LEXICAL)
    store.set_meta("embeddings_prune", "1")
