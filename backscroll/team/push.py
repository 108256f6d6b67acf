"""``backscroll push``: send this machine's records to the team archive, incrementally and idempotently.

What goes is what the store holds: records already redacted and echo-tagged at ingest, with their vectors.
The store remembers, per archive and member, the highest record id whose batch the archive committed
(``archive_pushed:<archive key>``); a push sends what came after it, a batch per transaction, and moves the
mark after each. A push killed between the archive's commit and the mark sends that batch again, and the
archive's upsert keeps one row per ``(member, machine, record_id)``: nothing doubles. A record sent before it
had a vector (a push right after new lines were read) gets it from a later push: of the records embedded since the
last push asked (``archive_vectored:<key>``, an embedding pass), the archive names those it holds without one, and
each is given its vector alone. Records redacted again are sent again in place, as are vectors: a row a member
deleted from the archive stays deleted. A record a re-read took out of the store (a newer parser gave it another
id, or found it a misreading) is taken out of the archive by the next push, as its replacement goes in.
``prune`` removes from the archive this member's rows of this machine that the store no longer holds, of the
sessions it holds: another store on the same machine (a second data dir, a container) pushes under the same name,
and its other sessions are its own.
"""

from __future__ import annotations

import functools
import json
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from backscroll.config import Config
from backscroll.dates import format_ts
from backscroll.errors import ArchiveError, UsageError
from backscroll.indexes.lexical_schema import MAX_WORD, analyze, stem
from backscroll.indexes.matrix import DIM_DEFAULT
from backscroll.indexes.packing import unpack
from backscroll.ingest.redact_again import RULES_VERSION, is_current
from backscroll.status_types import ArchiveStatus, LastPush
from backscroll.store.archive_pg import Archive
from backscroll.store.archive_search import vector_literal
from backscroll.store.archive_url import where
from backscroll.store.db import Store
from backscroll.store.outbox import LAST_PUSH
from backscroll.team.marks import Marks
from backscroll.types import MAX_TEXT_BYTES

BATCH = 500
MAX_WORDS_CHARS = MAX_TEXT_BYTES  # all the store keeps of a text: its words fit a tsvector (1 MB at most)
_PARTS = re.compile(r"[A-Z][a-z]+")


@dataclass(frozen=True)
class PushReport:
    archive: str  # user@host/db, never a password
    member: str
    machine: str
    pending: int  # records that were to go
    pushed: int
    pruned: int
    departed: int  # rows taken out because a re-read took their records out of the store
    dry_run: bool
    vectors: bool  # the archive stores pgvector vectors (else real[] for an exact scan)
    vectors_added: int = 0  # rows sent before they had a vector, given it
    note: str | None = None  # what the archive's owner should run (an archive older than this client)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def settings(cfg: Config, to: str | None, env=None) -> tuple[str, str | None]:
    """``(archive URL, member or None)``: ``to`` (``default``: as not given), else ``$BACKSCROLL_ARCHIVE_URL``, else
    ``[archive] url`` in the config file; the member from ``[archive] member`` (default: the database role the URL
    connects as, which libpq takes from the OS user). The password comes from the usual PostgreSQL places
    (``PGPASSWORD``, ``~/.pgpass``, a service file), never from backscroll's config."""
    env = cfg.env if env is None else env
    section = cfg.file_values.get("archive")
    section = section if isinstance(section, dict) else {}
    url = (to if to != "default" else None) or env.get("BACKSCROLL_ARCHIVE_URL") or section.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ArchiveError("no team archive given", hint="pass its URL (postgresql://USER@HOST/DB: push --to, "
                           "search --archive), or set $BACKSCROLL_ARCHIVE_URL or [archive] url in the config file",
                           reason="no-archive")
    member = section.get("member")
    return url.strip(), member if isinstance(member, str) and member.strip() else None


def archive_words(text: str) -> tuple[str, str, str]:
    """What the archive's full-text indexes hold of ``text``, as the local index holds it: its words as backscroll's
    own analyzer splits them (lowercased, long runs dropped), in order; their English stems; the capitalised pieces
    of its identifiers (``CheckoutLineSerializer``: checkout, line, serializer)."""
    head = text[:MAX_WORDS_CHARS]
    words = analyze(head)
    stems = " ".join(dict.fromkeys(stem(w) for w in words))
    parts = " ".join(dict.fromkeys(p.lower() for p in _PARTS.findall(head) if len(p) <= MAX_WORD))
    return " ".join(words), stems, parts


def archive_text(value):
    """A string as PostgreSQL can hold it: NUL, which no text value can, as ``␀`` (as backscroll shows it); other
    values as they are. A session may hold NUL (a binary file's bytes in a tool output)."""
    return value.replace("\x00", "\u2400") if isinstance(value, str) else value


def _vector(blob: bytes | None, pgvector: bool, dim: int) -> str | list[float] | None:
    if blob is None:
        return None
    values = unpack(blob, dim)
    return vector_literal(values) if pgvector else values.astype(float).tolist()


@functools.lru_cache(maxsize=1024)
def _shown_path(path: str | None) -> str | None:
    """Where a record was read, as the archive shows it: a secret in a file's name (a log named by its session id)
    redacted."""
    from backscroll.ingest.redact import redact_optional

    return redact_optional(path)


def row_of(record: tuple, pgvector: bool, dim: int = DIM_DEFAULT) -> tuple:
    """An outbox row (``Store.outbox``) as the archive's columns (``archive_schema.RECORD_COLUMNS``): booleans,
    the words the archive indexes, the local id as the record's place in its session, the vector; NUL as ``␀``.
    Strings redacted with older rules than today's (or stored with redaction off) are redacted on the way out."""
    (seq, record_id, session_id, agent, project, cwd, title, role, content_type, author, tool_name, tool_call_id,
     is_echo, is_error, is_call, ts, text, source_path, line, is_sidechain, parent, vector, redaction) = record
    if redaction < RULES_VERSION:
        from backscroll.ingest.redact import redact, redact_optional

        text, project, cwd, title, tool_name = (redact(text), redact_optional(project), redact_optional(cwd),
                                                redact_optional(title), redact_optional(tool_name))
    source_path = _shown_path(source_path)  # (kept as it is here, to read the file again)
    return tuple(map(archive_text, (
        record_id, session_id, agent, project, cwd, title, role, content_type, author, tool_name, tool_call_id,
        bool(is_echo), bool(is_error), bool(is_call), ts, text, seq, source_path, line, bool(is_sidechain), parent,
        *archive_words(text), _vector(vector, pgvector, dim))))


def session_of(row: tuple, behind: bool) -> tuple:
    """An outbox session (``Store.outbox_sessions``) as the archive's columns, booleans; redacted on the way out
    when the store is ``behind`` today's rules (or was filled with redaction off)."""
    (session_id, agent, project, cwd, title, first_prompt, started, updated, is_sidechain, parent, records,
     echoes) = row
    if behind:
        from backscroll.ingest.redact import redact_optional

        project, cwd, title, first_prompt = map(redact_optional, (project, cwd, title, first_prompt))
    return tuple(map(archive_text, (session_id, agent, project, cwd, title, first_prompt, started, updated,
                                    bool(is_sidechain), parent, records, echoes)))


def _sent(store: Store, archive: Archive, member: str, machine: str, rows: list[tuple], pgvector: bool,
          dim: int, insert: bool = True) -> None:
    sessions = store.outbox_sessions(sorted({r[2] for r in rows}))
    late = not is_current(store)
    archive.upsert(member, machine, [row_of(r, pgvector, dim) for r in rows],
                   [session_of(s, late) for s in sessions], insert=insert)


def push(store: Store, archive: Archive, model: str, *, member: str | None = None, machine: str | None = None,
         dry_run: bool = False, prune: bool = False, again: bool = False, batch: int = BATCH,
         advance: Callable[[int], None] = lambda _n: None) -> PushReport:
    """Send the records after this archive's mark (``again``: every record, as to a new archive: one restored
    from a backup keeps its id and lacks what was sent since); with ``prune``, remove what the store no longer
    holds of its sessions."""
    if batch < 1:
        raise UsageError(f"a push sends records in batches of at least 1, not {batch}")
    behind = archive.check_version()
    role = archive.role()
    member = member or role
    if member != role:
        raise ArchiveError(f"member {member!r} is not your database role {role!r}: the archive lets each member "
                           "write only rows of their own role (connect as that role, or drop [archive] member)")
    marks = Marks.of(store, archive.identity(), member, dry_run)
    # the machine's name as this store first pushed it here: a laptop whose host name follows its network keeps one
    machine = machine or store.get_meta(marks.key("machine")) or socket.gethostname()
    if again:
        marks = Marks(marks.ident, 0, 0, 0, 0)
    mark, ident = marks.pushed, marks.ident
    revision, vector_pass = store.meta_count("revision_seq"), store.meta_count("vector_seq")
    pending = marks.pending(store)
    pgvector = archive.has_vector()
    dim = store.vector_dim(model) or DIM_DEFAULT
    pushed = pruned = 0
    # Records a re-read took out of the store leave the archive (a push --again too: a restored archive holds them)
    left, last_left = store.departed_since(marks.departed)
    left = [archive_text(r) for r in left]
    departed = sum((archive.held(member, machine, left[i:i + batch]) if dry_run else
                    archive.delete(member, machine, left[i:i + batch])) for i in range(0, len(left), batch))
    if not dry_run:
        store.set_meta(marks.key("machine"), machine)  # (before any row goes: a push cut short keeps the name too)
        store.set_meta(marks.key("departed"), str(last_left))
        # Records sent before and redacted again in place since (``ingest.redact_again``): the archive's copy
        # is replaced by the new text (in place only: a row a member deleted stays deleted).
        for rows in store.revised_outbox(marks.revised, mark, model, batch):
            _sent(store, archive, member, machine, rows, pgvector, dim, insert=False)
            pushed += len(rows)
            advance(len(rows))
        store.set_meta(marks.key("revised"), str(revision))
        for rows in store.outbox(mark, model, batch):
            _sent(store, archive, member, machine, rows, pgvector, dim)
            mark = rows[-1][0]
            store.set_meta(marks.key("pushed"), str(mark))  # autocommits: moves only after the archive committed
            pushed += len(rows)
            advance(len(rows))
        if pushed:  # (a session whose records a newer reader moved to a session named otherwise is left with none)
            archive.drop_empty_sessions(member, machine)
        store.set_meta(LAST_PUSH, json.dumps({"archive": where(archive.url), "member": member, "machine": machine,
                                              "at": format_ts(datetime.now(UTC)), "key": ident}))
    # The vectors of rows sent before they had one: of the records embedded since the last push asked, those the
    # archive holds without one (each batch its own transaction: a push cut short keeps what it sent)
    asked = vector_pass if marks.pushed == 0 else marks.vectored  # (a first push sent every vector it had)
    embedded = {archive_text(rid): rid for rid in store.embedded_since(asked, mark)}  # (as the archive names them)
    lacking = archive.unembedded_ids(member, machine, list(embedded))
    waiting = store.pushed_vectors(sorted(embedded[rid] for rid in lacking), model)
    vectors = len(waiting) if dry_run else sum(
        archive.set_vectors(member, machine, [(archive_text(rid), _vector(blob, pgvector, dim)) for rid, blob in
                                              waiting[i:i + batch]]) for i in range(0, len(waiting), batch))
    if not dry_run:
        store.set_meta(marks.key("vectored"), str(vector_pass))
    if prune:
        held, sessions = ({archive_text(i) for i in ids} for ids in (store.held_record_ids(), store.held_session_ids()))
        gone = sorted(r for r, session in archive.pushed_ids(member, machine).items()
                      if r not in held and session in sessions)
        pruned = len(gone) if dry_run else sum(archive.delete(member, machine, gone[i:i + batch])
                                               for i in range(0, len(gone), batch))
    return PushReport(where(archive.url), member, machine, pending, pushed, pruned, departed, dry_run, pgvector,
                      vectors, behind)


def push_to(cfg: Config, store: Store, to: str | None, **options) -> PushReport:
    """``push`` to the archive ``to`` (else the configured one), as the configured member if any."""
    from backscroll.indexes.embedders import model_id
    from backscroll.store.archive_pg import Archive

    url, member = settings(cfg, to)
    with Archive.connect(url) as archive:
        return push(store, archive, model_id(), member=member, **options)


def standing(cfg: Config, store: Store, env=None) -> ArchiveStatus | None:
    """What ``status`` says of the team archive, without connecting: the one configured and from where, and this
    store's last push with the records it has not sent since. None when none is configured nor was pushed to."""
    env = cfg.env if env is None else env
    last = json.loads(store.get_meta(LAST_PUSH) or "null")
    try:
        url: str | None = settings(cfg, None, env)[0]
    except ArchiveError as exc:
        if exc.reason != "no-archive":
            raise
        url = None
    if url is None and last is None:
        return None
    status = ArchiveStatus(where(url) if url else None, None if url is None else
                           "env $BACKSCROLL_ARCHIVE_URL" if env.get("BACKSCROLL_ARCHIVE_URL") else "config file")
    if last is not None:
        status.last_push = LastPush(last["archive"], last["member"], last["machine"], last["at"],
                                    Marks.read(store, last["key"]).pending(store))
    return status
