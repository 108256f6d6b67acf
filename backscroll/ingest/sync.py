"""Incremental sync, the driver: discover session files, read what is new, classify it, store it.

The steps live beside it: ``discover`` (which files, which are unreadable), ``reader`` (a line-based
file from its checkpoint), ``rows`` (records into redacted, echo-classified rows) and ``units``
(what one file holds, into the store). Each file's records and its checkpoint are stored together
(a savepoint per file, committed in groups), so a killed run leaves nothing half-done, a re-run adds
no duplicates, and a file that fails (unreadable, not a regular file, too large, a parser bug) is
rolled back alone and reported: it never costs the other files their records. Bad lines are skipped
and counted with file:line. A rewritten file's records that it no longer holds stay in the store
(the store is the permanent record; a notice says so). A path that is not valid UTF-8 is stored
with ``\\xNN`` escapes. Also here: the single-writer lock and re-classification of stored echoes.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from datetime import UTC, datetime

from backscroll.dates import format_ts
from backscroll.errors import DiskFullError, ReadOnlyStoreError
from backscroll.ingest import echo as classify
from backscroll.ingest.discover import file_gone, reason, remember_issues
from backscroll.ingest.echo_output import is_retrieval_output, marked
from backscroll.ingest.parse_version import PARSE_VERSION
from backscroll.ingest.quick import full_scan, quick_scan
from backscroll.ingest.reader import REPARSE_REASON
from backscroll.ingest.redact_again import META_KEY as REDACTION_KEY
from backscroll.ingest.redact_again import OFF as REDACTION_OFF
from backscroll.ingest.redact_again import redact_again
from backscroll.ingest.report import IndexReport, Progress
from backscroll.ingest.rows import Redact
from backscroll.ingest.sources import ContentError
from backscroll.ingest.sources.databases import scratch_in
from backscroll.ingest.units import flush_redactions, read_lines, read_whole, take_redaction_counts
from backscroll.interrupts import check, stoppable
from backscroll.store.db import Store
from backscroll.store.failures import store_failure
from backscroll.types import Notify, SourceRoot, quiet

__all__ = ["reclassify", "sync"]

COMMIT_EVERY_RECORDS = 20_000  # files are committed in groups this large (each file a savepoint of its own)


def _now() -> str:
    return format_ts(datetime.now(UTC))


def sync(store: Store, roots: Iterable[SourceRoot], progress: Progress | None = None,
         redactor: Redact | None = None, quick: bool = False, notify: Notify = quiet) -> IndexReport:
    """Bring the store up to date with every session file. The caller holds the writer lock.

    ``quick`` (the sync before a search) looks only at changed directories, recent files and a few
    others in turn (``ingest.quick``); otherwise (``index``) every file is looked at.

    Each file is a savepoint of its own, committed in groups of about ``COMMIT_EVERY_RECORDS``
    records: a file that fails is rolled back alone, reported unreadable (kept in ``source_issues``)
    and the sync goes on with the others' records intact. Ctrl-C says how many new records were saved. A call that
    is cancelled (``interrupts``) stops as Ctrl-C does: before the next file, or inside a long statement.
    """
    # (an agent's database read from a copy: the copy stays in the data dir)
    with scratch_in(store.path.parent), stoppable(store.conn):
        return _sync(store, roots, progress, redactor, quick, notify)


def _sync(store: Store, roots: Iterable[SourceRoot], progress: Progress | None, redactor: Redact | None,
          quick: bool, notify: Notify) -> IndexReport:
    started = time.perf_counter()
    progress = progress or Progress()
    report = IndexReport()
    reclassify(store)
    if redactor is not None:
        report.notices.extend(("(the store)", note) for note in redact_again(store).notes())
    reparse = store.get_meta("parse_version") != str(PARSE_VERSION)  # (a newer parser: every file is looked at once)
    issues = store.source_issues()
    known_unreadable = {key for key, issue in issues.items() if issue[0] == "unreadable"}
    now = _now()
    roots = list(roots)
    looked = (quick_scan if quick and not reparse else full_scan)(store, roots, issues, report)
    found, marks = looked.found, looked.marks
    older = {key for key, mark in marks.items() if mark[3] < PARSE_VERSION}  # read by an older parser

    progress.start(len(found.changed))
    pending = saved = 0
    store.journal_in_memory()  # the per-file savepoints' journal: no temp file
    store.begin()
    full = not quick or reparse  # (a search's quick sync looks at some files only)
    if full:
        store.set_meta("last_index_start", now)  # (with the first files' records: a run cut short shows in `status`)
    try:
        for agent, path, key, size, mtime_ns in found.changed:
            check()  # (a cancelled call stops here: the groups committed stay, the next run reads the rest)
            read = read_whole if agent.read_whole is not None else read_lines
            before = report.records_added
            mark = (report.records_added, report.records_replaced, report.lines_skipped,
                    len(report.skipped_examples), len(report.notices))
            store.savepoint()
            try:
                pending += read(store, agent, path, store.file_state(key) if key in marks else None, size,
                                mtime_ns, redactor, report, now, reparse=key in older)
                if key in issues and issues[key][0] == "unreadable":
                    store.clear_source_issue(key)
                    del issues[key]
                if key != str(path):
                    report.notices.append((key, "the path is not valid UTF-8: stored with \\x escapes"))
                flush_redactions(store, redactor)
                store.release()
            except Exception as exc:  # this file alone is rolled back; the others keep their records
                check()  # (a statement the cancel ended: not this file's fault)
                if not store.conn.in_transaction or (isinstance(exc, sqlite3.Error) and isinstance(
                        store_failure(exc, store.path), (DiskFullError, ReadOnlyStoreError))):
                    raise  # the store itself failed (a full disk, a read-only mount): not this file's fault
                store.undo_savepoint()
                take_redaction_counts(redactor)  # those records were not stored
                (report.records_added, report.records_replaced, report.lines_skipped) = mark[:3]
                del report.skipped_examples[mark[3]:], report.notices[mark[4]:]
                if isinstance(exc, FileNotFoundError) and file_gone(key):  # gone since it was found (an
                    progress.advance(str(path), 0)  # agent pruning its logs): no fault; its records stored before stay
                    continue
                report.unreadable.append((key, reason(exc)))
                # Content that cannot be read (or a parser bug) is remembered until the file changes;
                # a passing error (busy, permission) is tried again next time.
                remember = isinstance(exc, ContentError) or not isinstance(exc, OSError)
                found.failed.append((key, reason(exc), size if remember else None, mtime_ns if remember else None))
                progress.advance(str(path), 0)
                continue
            report.files_changed += 1
            if pending >= COMMIT_EVERY_RECORDS:
                _with_the_group(store, redactor, report)
                store.commit()
                store.begin()
                pending, saved = 0, report.records_added
            progress.advance(str(path), report.records_added - before)
        report.newly_unreadable = sum(1 for key, _why in report.unreadable if key not in known_unreadable)
        remember_issues(store, found, issues, now)
        looked.remember(store)
        store.set_meta("last_index_run", _now())  # `status`: when the sources were last looked at
        if full:
            store.set_meta("last_full_index_run", _now())
        _with_the_group(store, redactor, report, leaf_titles=False)
        if found.changed:  # (a summary whose leaf is not stored waits for new records; a search's sync that read
            # nothing looked up every waiting leaf: thousands in a large history)
            store.apply_leaf_titles()
        reparsed = len({key for _a, _p, key, _s, _m in found.changed if key in older} - {f[0] for f in found.failed})
        if reparsed:
            report.notices.append(("(all sources)", f"{reparsed} session file(s) {REPARSE_REASON}"))
        if reparse:
            store.set_meta("parse_version", str(PARSE_VERSION))
        store.commit()
    except BaseException as exc:
        store.rollback()
        take_redaction_counts(redactor)  # those records were not stored
        if isinstance(exc, KeyboardInterrupt) and not quick:
            notify(f"reading interrupted: {saved:,} new records were saved (they are saved "
                   f"{COMMIT_EVERY_RECORDS:,} at a time); the next run reads the rest")
        raise
    finally:
        progress.finish()
    report.seconds = time.perf_counter() - started
    return report


def _with_the_group(store: Store, redactor: Redact | None, report: IndexReport, leaf_titles: bool = True) -> None:
    """What the run's end says of the records stored so far, saved with each group of files too: a run stopped after a
    group was saved must leave nothing undone that the next run, which may read nothing new, would not do."""
    if redactor is None and (report.records_added or report.records_replaced):
        store.set_meta(REDACTION_KEY, REDACTION_OFF)  # redacted once redaction is on again
    if leaf_titles:
        store.apply_leaf_titles()  # (the titles waiting for a leaf this group stored)


def reclassify(store: Store) -> int:
    """Apply the current echo rules to every stored tool call and its results; returns rows changed.

    Runs when the store was classified by another version of the rules. The calls revisited are the
    ones stored as shell calls (``is_shell``: their source gave a command, whatever the agent calls
    the tool) and the MCP calls to backscroll; no list of tool names is kept here. Then a tool output
    that shows backscroll's answers is an echo, with its call, whatever ran it. The lexical index
    holds ``is_echo`` too, so it is rebuilt afterwards; a team archive gets the new flags with the next push.
    """
    if store.get_meta("classifier_version") == str(classify.VERSION):
        return 0
    store.begin()
    try:
        changed = 0
        revision = store.meta_count("revision_seq") + 1  # (a push sends the rows flagged anew again)
        for rid, session, call_id, text, was, tool, shell in store.classifiable_calls():
            echo = int(classify.is_mcp_echo(tool) or (bool(shell) and classify.is_query_echo(text)))
            if echo != was:
                changed += 1
                store.set_echo(rid, session, call_id, echo, revision)
        for batch in store.tool_outputs_not_echoes(marked):
            for rid, session, call_id, text in batch:
                if is_retrieval_output(text):
                    changed += 1
                    store.set_output_echo(rid, session, call_id, revision)
        if changed:
            store.set_meta("lexical_generation", None)  # the index is rebuilt with the new flags
            store.set_meta("revision_seq", str(revision))
        store.set_meta("classifier_version", str(classify.VERSION))
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return changed
