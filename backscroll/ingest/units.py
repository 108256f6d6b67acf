"""Writing what one source file holds to the store: its rows, session, skipped lines and checkpoint.

A line-based file goes through the checkpointed ``reader.FileReader``; a file a format rewrites (or
a database) is read whole, each of its units (sessions) stored under its own key. A unit read again
from the start replaces the records it emits again, in conversation order, and keeps the ones it no
longer holds (a notice says how many), unless a newer parser read the very bytes they came from:
then they were misread, and go. A subagent's records a format interleaves with its parent's are
stored as a session of their own (``SourceUnit.subsessions``). Everything a unit stores is redacted;
the caller wraps each file in a savepoint.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from backscroll.ingest.parse_version import PARSE_VERSION
from backscroll.ingest.projects import project
from backscroll.ingest.reader import REPARSE_REASON, FileReader
from backscroll.ingest.report import IndexReport
from backscroll.ingest.rows import (
    Batch,
    Redact,
    Row,
    on_disk,
    safe_rows,
    safe_session,
    store_text,
    stored_session,
    stored_session_id,
)
from backscroll.ingest.sources import Agent, ContentError
from backscroll.sanitize import shorten
from backscroll.store.db import FileState, Store
from backscroll.types import Record, SessionInfo


def flush_redactions(store: Store, redactor: Redact | None) -> None:
    """Record the redaction counts in the same transaction as the records they came from."""
    counts = take_redaction_counts(redactor)
    if counts:
        store.add_redactions(counts)


def take_redaction_counts(redactor: Redact | None) -> dict[str, int]:
    """What a counting redactor (``redact.Redactor``) replaced since it was last asked, per kind."""
    take = getattr(redactor, "take_counts", None)
    return take() if take is not None else {}


def session_row(session: SessionInfo, key: str, started: str | None, updated: str | None,
                title_rank: int | None) -> dict:
    """The row ``Store.upsert_session`` takes for a session read from ``key``."""
    return {"session_id": session.session_id, "agent": session.agent,
            "project": project(session.cwd, session.repository), "cwd": session.cwd, "title": session.title,
            "started_at": started, "updated_at": updated,
            "source_path": key, "is_sidechain": int(session.is_sidechain),
            "parent_session_id": session.parent_session_id, "title_rank": title_rank}


def store_unit(store: Store, key: str, session: SessionInfo, rows: list[Row], batch: Batch,
               skipped: list[tuple[int, str]], report: IndexReport, now: str, redactor: Redact | None = None, *,
               reread: str | None = None, title_rank: int | None = None,
               unknown: dict[str, tuple[int, int]] | None = None, superseded: bool = False,
               whole: bool = False) -> int:
    """Insert one unit's rows, its session and its skipped lines (all redacted); returns records added.

    ``reread`` (why a unit is read again from the start) makes re-emitted record ids replace their
    earlier versions; earlier records it no longer holds are kept, and a notice says how many, unless
    ``superseded``: a newer parser read the very bytes they came from (``Store.upsert_records``); for a
    file read ``whole``, the session it first gave then takes its title and times from this reading
    alone (a line-based session's title may come from another file: Claude Code's summaries).
    """
    raw, session = session.session_id, stored_session(session, redactor)
    if redactor is not None:
        skipped = [(ln, redactor(why) if why else why) for ln, why in skipped]
    if reread is None:
        added = store.insert_records(store.apart(rows, appended=True))
    else:
        before = store.source_records(key)
        store.forget_skipped(key)
        added, replaced, matched, versions = store.upsert_records(rows, key, superseded=superseded)
        report.records_replaced += replaced
        if replaced:  # their embeddings may now belong to no unit (vectors.prune_orphans)
            store.set_meta("embeddings_prune", "1")
        kept = before - matched + versions  # (a record the file now gives another text: its earlier text kept)
        store.forget_unknown(key)
        if reread == REPARSE_REASON:
            kept = 0  # a parser that now reads less of a file is not news about the file
        if kept > 0:
            note = f"{reread}; {kept} earlier record(s) no longer in it were kept in the store"
            report.notices.append((key, note))
            store.set_source_issue(key, "rewritten", note, now)
    if batch.stored_echo_calls:  # calls read before whose output, read now, was backscroll's answer
        revision = store.meta_count("revision_seq") + 1
        if store.flag_echo_calls(batch.stored_echo_calls, revision):
            store.set_meta("revision_seq", str(revision))
    if superseded and whole:  # the title and times this file gave before, perhaps misread, are read afresh
        store.forget_session_times(session.session_id, key)
    if rows or session.title or session.cwd:
        store.upsert_session(session_row(session, key, batch.first_ts, batch.last_ts,
                                         1 if title_rank is None else title_rank))
    if raw != session.session_id:  # (stored by an older reader as the log gave it: that row, secret and all, goes)
        store.drop_session_if_empty(raw)
    if unknown:
        store.add_unknown(key, session.agent, type_names(unknown, redactor))
    if skipped:
        store.add_skipped(key, skipped, now)
        report.lines_skipped += len(skipped)
        report.skipped_examples.extend((key, ln, why) for ln, why in skipped[:3])
    report.records_added += added
    return added


def adopt_moved(store: Store, key: str, rows: list[Row]) -> None:
    """A file read for the first time under the name of a file no longer there whose records it holds is that
    file, moved (a folder renamed, a home restored elsewhere): the records read from it name where it is now. A
    copy, whose original is still there, or a file of another name that holds some of its records (a session
    forked or resumed into a new file), is a file of its own."""
    for old in store.sources_holding([str(row[0]) for row in rows], besides=key):
        # (a file the store read: a unit of a database, ``db#session``, is no file that could move)
        if os.path.basename(old) == os.path.basename(key) and store.marks_of([old]) and not on_disk(old):
            store.move_source(old, key)


TYPE_NAME_MAX = 80  # characters of an unknown entry type ``status`` names (the type is the log's text)


def type_names(unknown: dict[str, tuple[int, int]], redactor: Redact | None) -> dict[str, tuple[int, int]]:
    """Unknown entry types by a name fit to show: redacted, bounded, their counts joined where two names meet."""
    out: dict[str, tuple[int, int]] = {}
    for name, (n, line) in unknown.items():
        shown = shorten(redactor(name) if redactor is not None else name, TYPE_NAME_MAX)
        m, first = out.get(shown, (0, line))
        out[shown] = (m + n, min(first, line) if first and line else first or line)
    return out


def read_lines(store: Store, agent: Agent, path: Path, prev: FileState | None, size: int, mtime_ns: int,
               redactor: Redact | None, report: IndexReport, now: str, reparse: bool = False) -> int:
    """A line-based file from its checkpoint. Returns the rows written."""
    reader = FileReader(store, agent, path, prev, redactor, reparse=reparse)
    state, session = reader.read(size, mtime_ns)
    rows = reader.rows if reader.key == str(path) else safe_rows(reader.rows)
    if prev is None and reader.key == str(path) and rows:
        adopt_moved(store, reader.key, rows)
    store_unit(store, reader.key, session, rows, reader.batch, reader.skipped, report, now,
               redactor, reread=reader.rewritten, title_rank=reader.title_rank,
               unknown={t: (n, line) for t, (n, line) in reader.unknown.items()}, superseded=reader.intact_reparse)
    if reader.side is not None:
        side = stored_session(reader.side, redactor)
        store.upsert_session(session_row(side, reader.key, reader.first_ts, reader.last_ts, None))
    if reader.leaf_titles:
        store.add_leaf_titles({uuid: redactor(title) if redactor is not None and title else title
                               for uuid, title in reader.leaf_titles.items()}, now)
    store.save_file_state(state, now, PARSE_VERSION)
    return len(rows)


def store_subsessions(store: Store, key: str, records: list[Record], subsessions: dict[str, SessionInfo],
                      redactor: Redact | None) -> None:
    """The sessions of a unit's records that belong to another session than the unit's (subagents)."""
    spans: dict[str, tuple[SessionInfo, list[str]]] = {}
    for rec in records:
        sub = subsessions.get(rec.record_id)
        if sub is not None:
            spans.setdefault(sub.session_id, (sub, []))[1].extend([rec.timestamp] if rec.timestamp else [])
    for sub, times in spans.values():
        store.upsert_session(session_row(stored_session(sub, redactor), key, min(times, default=None),
                                         max(times, default=None), None))


def read_whole(store: Store, agent: Agent, path: Path, prev: FileState | None, size: int, mtime_ns: int,
               redactor: Redact | None, report: IndexReport, now: str, reparse: bool = False) -> int:
    """A rewritten file or a database, read whole: each unit's re-emitted records replace their earlier
    versions; records a unit no longer holds are kept."""
    if agent.read_whole is None:
        raise TypeError(f"{agent.name} sessions are read line by line, not whole")
    try:
        result = agent.read_whole(path, dict(prev.session_state) if prev and not reparse else {})
    except OSError:
        raise
    except Exception as exc:  # a parser bug must not stop the other files
        raise ContentError(f"could not be read as {agent.name} sessions: {type(exc).__name__}: {exc}") from None
    written = 0
    key = store_text(str(path))
    dirty = key != str(path)
    # a newer parser reading exactly what was read before: what it no longer finds was a misreading
    superseded = reparse and prev is not None and (prev.size, prev.mtime_ns) == (size, mtime_ns)
    for unit in result.units:
        unit_key, session = unit.key, unit.session
        if session.cwd is None and session.parent_session_id:  # a subagent's file that names no directory
            session = replace(session, cwd=store.session_cwd(stored_session_id(session.parent_session_id, redactor)
                                                             or ""))
        if dirty or session.session_id != store_text(session.session_id):
            unit_key, session = store_text(unit_key), safe_session(session)
        subsessions = {rid: safe_session(s) if dirty else s for rid, s in unit.subsessions.items()}
        batch = Batch(store, unit_key, redactor)
        for rec in unit.records:
            batch.add(rec, subsessions.get(rec.record_id, session))
        rows = batch.finish(session)
        if dirty:
            rows = safe_rows(rows)
        if prev is None and unit_key == key and rows:
            adopt_moved(store, unit_key, rows)
        store_unit(store, unit_key, session, rows, batch, unit.skipped, report, now,
                   redactor, reread=REPARSE_REASON if reparse else "rewritten",
                   unknown={t: (n, 0) for t, n in unit.unknown.items()}, superseded=superseded, whole=True)
        store_subsessions(store, unit_key, unit.records, subsessions, redactor)
        written += len(rows)
    store.save_file_state(FileState(key, agent.name, size, mtime_ns, size, 0, "", "", "",
                                    result.state), now, PARSE_VERSION)
    return written
