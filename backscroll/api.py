"""The library API the CLI and the pytest plugin call: ``index``, ``search``, ``status``, ``rebuild``.

Each call resolves the configuration, opens the store, keeps the derived indexes in step, and
returns plain result objects. Nothing here prints; notices go to the ``notify`` callback.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from backscroll.config import Config, resolve
from backscroll.errors import (
    CORRUPT_HINT,
    BackscrollError,
    CorruptStoreError,
    DamagedIndexError,
    LockedError,
    NothingIndexedError,
    ReadOnlyStoreError,
    SemanticUnavailableError,
    UsageError,
    store_failure,
)
from backscroll.indexes.lexical import LexicalDamaged, LexicalIndex, analyze
from backscroll.ingest.report import IndexReport, Progress
from backscroll.ingest.sync import sync, writer_lock
from backscroll.retrieval.query import plan as plan_query
from backscroll.store.db import Store
from backscroll.types import AUTHORS, CONTENT_TYPES, ROLES, Filters, SearchResult

Notify = Callable[[str], None]
MODES = ("hybrid", "lexical", "semantic")
INDEX_LOCK_WAIT = 10.0  # seconds a writer waits for another one; $BACKSCROLL_LOCK_WAIT overrides


def _lock_wait(wait: float | None) -> float:
    """``wait`` when given, else ``$BACKSCROLL_LOCK_WAIT`` seconds, else ``INDEX_LOCK_WAIT``."""
    if wait is not None:
        return wait
    raw = os.environ.get("BACKSCROLL_LOCK_WAIT", "").strip()
    if not raw:
        return INDEX_LOCK_WAIT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise UsageError(f"$BACKSCROLL_LOCK_WAIT must be a number of seconds, not {raw!r}",
                         hint="unset it for the default of 10 seconds")
    return value
ALSO_MATCHING = 3  # extras a hinted filter may add
SEARCH_EMBED_LIMIT = 64  # new records a search embeds itself (a new session: well under 2 s)
# Below this cosine a meaning-only match is noise (issue #18: `search xyzzyplugh` returned 10 hits).
# Measured with the real MiniLM over fixtures/eval (bench/semantic_floor.py, 55 queries, 183 units):
# each query against its target unit (related pairs): min 0.256, p5 0.273, median 0.574; against
# every other unit (unrelated, and same-topic distractors): median 0.093, p90 0.229; the best unit a
# nonsense query reaches ("xyzzyplugh", "qwertyuiop asdf", "blorft zingle wump", "the", ...): at most
# 0.221. The floor sits between the best nonsense match and the weakest related pair.
SEMANTIC_FLOOR = 0.24


def _quiet(_msg: str) -> None:
    pass


@dataclass
class IndexOutcome:
    report: IndexReport
    lexical_added: int = 0
    embedded: int = 0
    embed_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.report.to_dict()
        d["lexical_documents_added"] = self.lexical_added
        d["units_embedded"] = self.embedded
        d["embed_seconds"] = round(self.embed_seconds, 3)
        d["notes"] = list(self.notes)
        return d


def _config(cfg: Config | None, home, sources) -> Config:
    return cfg if cfg is not None else resolve(home=home, sources=tuple(sources or ()))


def _store_errors(fn):
    """Report a full disk, a store that cannot be written or a damaged one as what it is (see
    ``errors.store_failure``) instead of an internal error."""

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            return fn(*args, **kw)
        except BackscrollError:
            raise
        except Exception as exc:
            try:
                db = _config(kw.get("cfg"), kw.get("home"), kw.get("sources")).db_path
            except Exception:
                raise exc from None
            known = store_failure(exc, db)
            if known is None:
                raise
            raise known from None

    return wrapper


def _writable(cfg: Config) -> bool:
    """Whether the existing store (and the directory its journal lives in) may be written."""
    files = [cfg.db_path] + [p for p in (cfg.db_path.with_name(cfg.db_path.name + s) for s in ("-wal", "-shm"))
                             if p.exists()]
    return all(os.access(p, os.W_OK) for p in (*files, cfg.db_path.parent))


def _refuse_if_damaged(store: Store) -> None:
    """Write nothing into a damaged store: ``quick_check`` first (about 0.2 s per 100 MB)."""
    from backscroll.errors import integrity_problems

    problems = integrity_problems(store.path)
    if problems:
        raise CorruptStoreError(
            f"the store {store.path} is damaged (quick_check: {'; '.join(problems[:3])}); nothing was written to it",
            hint=CORRUPT_HINT.format(db=store.path))


def _redactor(cfg: Config):
    """A fresh counting redactor, or None when the configuration turned redaction off."""
    if not cfg.redact.value:
        return None
    from backscroll.ingest.redact import Redactor

    return Redactor()


EMBED_NOTICE_MIN = 500  # pending texts from which `index` says that lexical search is ready first


def embed_pending(store: Store, cfg: Config, progress=None, notify: Notify = _quiet,
                  announce: bool = False) -> tuple[int, float]:
    """Embed every prose record without a vector (newest first), then refresh the matrix cache.

    ``announce``: say first that lexical search already covers everything (``index`` on a large
    backlog). Ctrl-C keeps what was committed and says so before the KeyboardInterrupt goes on.
    """
    import time

    from backscroll.indexes import embed
    from backscroll.indexes.vectors import Vectors

    t0 = time.perf_counter()
    vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
    old_model = store.get_meta("vectors_model")
    if vecs.ensure_model():
        notify(f"the embedding model changed ({old_model} → {vecs.model}): every text is embedded again, once")
    total = vecs.pending()
    if announce and total >= EMBED_NOTICE_MIN:
        searchable = store.conn.execute("SELECT count(*) FROM records").fetchone()[0]
        notify(f"{searchable:,} records searchable now; embedding {total:,} texts for meaning-based search, "
               "newest first (Ctrl-C is safe: `backscroll embed` resumes)")
    if progress is not None:
        progress.start(total)
    done = {"records": 0}

    def step(records: int, _units: int) -> None:
        done["records"] = records
        if progress is not None:
            progress.advance(records)

    try:
        n = vecs.embed_pending(lambda: embed.load(bulk=True), progress=step)
    except KeyboardInterrupt:
        if progress is not None:
            progress.finish()
            progress = None
        notify(f"embedding interrupted: {done['records']:,} of {total:,} texts were done and are kept; "
               "`backscroll embed` (or the next `index`) resumes")
        raise
    finally:
        if progress is not None:
            progress.finish()
    pruned = vecs.prune_orphans()
    vecs.refresh_matrix(force=n > 0 or pruned > 0)
    vecs.prune_query_cache()
    return n, time.perf_counter() - t0


@contextmanager
def _writing(cfg: Config, wait: float | None, *, must_exist: bool = False,
             hint: str = "run it again when that has finished"):
    """The store, opened with the single-writer lock held (LockedError after ``wait`` seconds)."""
    wait = _lock_wait(wait)
    store = Store.open_existing(cfg.db_path) if must_exist else Store.open(cfg.db_path)
    try:
        with writer_lock(cfg, wait) as acquired:
            if not acquired:
                raise LockedError("indexing already in progress in another backscroll process", hint=hint)
            yield store
    finally:
        store.close()


@_store_errors
def index(*, cfg: Config | None = None, home=None, sources=(), embed: bool | None = None,
          progress: Progress | None = None, lexical_progress=None, embed_progress=None,
          wait: float | None = None, notify: Notify = _quiet) -> IndexOutcome:
    """Read every new session line into the store and bring the derived indexes up to date.

    ``embed=None`` follows the configuration (on by default); embedding needs the model package.
    """
    cfg = _config(cfg, home, sources)
    do_embed = cfg.embed.value if embed is None else embed
    with _writing(cfg, wait, hint="wait for it to finish; searches meanwhile answer from the last committed state") as store:
        _refuse_if_damaged(store)
        notes: list[str] = []
        report = sync(store, cfg, progress, _redactor(cfg))
        added = LexicalIndex(cfg.index_dir).sync(store, notes.append, lexical_progress, check=True)
        outcome = IndexOutcome(report, added, notes=notes)
        if do_embed:
            try:
                outcome.embedded, outcome.embed_seconds = embed_pending(store, cfg, embed_progress, notify,
                                                                        announce=True)
            except SemanticUnavailableError as exc:
                notes.append(f"embedding skipped: {exc.message} (lexical search still works)")
    for n in notes:
        notify(n)
    return outcome


@_store_errors
def embed(*, cfg: Config | None = None, home=None, progress=None, wait: float | None = None,
          notify: Notify = _quiet) -> tuple[int, float]:
    """Backfill embeddings for everything already in the store (``backscroll embed``)."""
    cfg = _config(cfg, home, ())
    with _writing(cfg, wait, must_exist=True) as store:
        return embed_pending(store, cfg, progress, notify)


@_store_errors
def rebuild(*, cfg: Config | None = None, home=None, notify: Notify = _quiet, lexical_progress=None) -> int:
    """Recreate the derived indexes from the store alone; returns the number of documents indexed."""
    cfg = _config(cfg, home, ())
    with _writing(cfg, None, must_exist=True) as store:
        # Built beside the index in use and swapped in when complete: searches meanwhile use the old one.
        return LexicalIndex(cfg.index_dir).rebuild(store, notify, lexical_progress)


def _check_agent(agent: str | None) -> None:
    from backscroll.ingest.sources import AGENTS

    if agent is not None and agent not in AGENTS:
        raise UsageError(f"unknown agent {agent!r}", hint=f"use one of: {', '.join(AGENTS)}")


def make_filters(*, role=None, agent=None, content_type=None, project=None, session=None,
                 since=None, until=None, author=None) -> Filters:
    from backscroll.dates import parse_when

    if role is not None and role not in ROLES:
        raise UsageError(f"unknown role {role!r}", hint=f"use one of: {', '.join(ROLES)}")
    if content_type is not None and content_type not in CONTENT_TYPES:
        raise UsageError(f"unknown content type {content_type!r}", hint=f"use one of: {', '.join(CONTENT_TYPES)}")
    if author is not None and author not in AUTHORS:
        raise UsageError(f"unknown author {author!r}", hint=f"use one of: {', '.join(AUTHORS)}")
    _check_agent(agent)
    since_ts = parse_when(since) if since else None
    until_ts = parse_when(until, end=True) if until else None
    if since_ts and until_ts and since_ts >= until_ts:
        raise UsageError(f"--since {since} is not before --until {until}: nothing can match",
                         hint="swap them: --since is the older end of the range")
    return Filters(author=author, role=role, agent=agent, content_type=content_type, project=project, session=session,
                   since=since_ts, until=until_ts)


def _prepare(cfg: Config, do_sync: bool, notes: list[str], lexical: bool = True, progress=None,
             lexical_progress=None) -> tuple[Store, LexicalIndex, bool]:
    """Open the store and an up-to-date lexical index (syncing first unless told not to).

    Returns the store, the index and whether this process synced (and so may embed new records).
    """
    if not cfg.db_path.exists() and not do_sync:
        raise NothingIndexedError(f"nothing is indexed yet (no store at {cfg.db_path})",
                                  hint="run `backscroll index` first")
    if cfg.db_path.exists() and not _writable(cfg):
        return _prepare_readonly(cfg, notes, lexical)
    try:
        store = Store.open(cfg.db_path)
    except ReadOnlyStoreError:
        return _prepare_readonly(cfg, notes, lexical)
    lex = LexicalIndex(cfg.index_dir)
    with writer_lock(cfg, 0.0) as acquired:
        if acquired:
            if do_sync:
                report = sync(store, cfg, progress, redactor=_redactor(cfg))
                if report.unreadable:
                    notes.append(f"{len(report.unreadable)} session file(s) could not be read; see `backscroll status`")
            lex.sync(store, notes.append, lexical_progress)
            return store, lex, do_sync
    notes.append("another backscroll process is indexing; answering from the last committed state")
    if not lex.open_for_read():
        store.close()
        raise LockedError("the index is being built by another backscroll process and no earlier snapshot exists",
                          hint="try again when `backscroll index` has finished")
    return store, lex, False


def _rebuild_damaged(cfg: Config, store: Store, lex: LexicalIndex, exc: LexicalDamaged, notes: list[str]) -> None:
    """A search met a damaged index: rebuild it from the store (under the writer lock) or say why not."""
    with writer_lock(cfg, 0.0) as acquired:
        if not acquired:
            raise DamagedIndexError(f"the lexical index is damaged ({exc}) and another backscroll process is "
                                    "writing, so it cannot be rebuilt now",
                                    hint="run `backscroll rebuild` when the other process has finished")
        lex.rebuild(store, notes.append)
    notes.append("the lexical index was damaged; rebuilt it from the store")


def _prepare_readonly(cfg: Config, notes: list[str], lexical: bool = True) -> tuple[Store, LexicalIndex, bool]:
    """A store that cannot be written (a backup on read-only media) is searched as it is. Tantivy
    cannot open an index it may not lock, so a read-only index is searched from a temporary copy."""
    store = Store.open_readonly(cfg.db_path)
    notes.append(f"the store in {cfg.db_path.parent} cannot be written: answered from it as it is, "
                 "without reading new session lines")
    lex = LexicalIndex(cfg.index_dir)
    if lexical and not lex.open_for_read():
        import atexit
        import tempfile
        from pathlib import Path

        tmp = tempfile.mkdtemp(prefix="backscroll-index-")
        atexit.register(shutil.rmtree, tmp, True)
        if cfg.index_dir.is_dir():
            shutil.copytree(cfg.index_dir, tmp, dirs_exist_ok=True)
        lex = LexicalIndex(Path(tmp))
        if not lex.open_for_read():
            store.close()
            raise ReadOnlyStoreError(
                f"the store in {cfg.db_path.parent} cannot be written, and its search index is missing or unreadable",
                hint="copy the data dir somewhere writable and run `backscroll --home COPY rebuild`")
    return store, lex, False


class _LazyEmbedder:
    """Loads the query-time embedder on first use only (lexical searches never pay for it)."""

    def __init__(self):
        self._e = None

    def __call__(self):
        if self._e is None:
            from backscroll.indexes.embed import load

            self._e = load(bulk=False)
        return self._e


EMBEDDED_TYPES_SQL = "'text', 'summary'"  # prose and compaction summaries are embedded; reasoning is not


def _semantic_allowed(store: Store, filters: Filters) -> set[int] | None:
    """Record ids the filters allow, for the semantic list (None when nothing is filtered)."""
    where, params = [], []
    for col, value in (("role", filters.role), ("agent", filters.agent), ("project", filters.project),
                       ("session_id", filters.session), ("author", filters.author),
                       ("content_type", filters.content_type)):
        if value:
            where.append(f"{col} = ?")
            params.append(value)
    if filters.since:
        where.append("timestamp >= ?")
        params.append(filters.since)
    if filters.until:
        where.append("timestamp < ?")
        params.append(filters.until)
    if not where:
        return None
    sql = (f"SELECT id FROM records WHERE content_type IN ({EMBEDDED_TYPES_SQL}) AND is_echo = 0 AND "
           + " AND ".join(where))
    return {r[0] for r in store.conn.execute(sql, params)}


def _coverage_note(store: Store, pending: int) -> str:
    """How much of the prose the semantic ranking covers (a partly embedded store)."""
    prose = store.conn.execute("SELECT count(*) FROM records WHERE content_type IN ('text', 'summary') AND is_echo = 0").fetchone()[0]
    share = max(0, prose - pending) * 100 // max(prose, 1)
    return (f"meaning-based ranking covers {share}% of prose ({pending:,} texts not embedded yet); "
            "`backscroll embed` finishes it")


def _semantic_list(store: Store, cfg: Config, plan, filters: Filters, mode: str, depth: int,
                   fresh: bool, notes: list[str], memo: dict | None = None) -> list[tuple[int, float]] | None:
    """The semantic ranking, or None when there are no vectors to rank with (or no model to use).

    A search embeds a few new records itself, under the writer lock (never beside an ``index``).
    """
    from backscroll.indexes import embed
    from backscroll.indexes.vectors import Vectors

    if filters.content_type == "tool" or filters.role == "tool":
        if mode == "semantic":
            notes.append("tool rows are never embedded: semantic search has nothing to rank for --content-type tool")
        return []
    if filters.content_type == "reasoning":
        if mode == "semantic":
            notes.append("reasoning is not embedded: semantic search has nothing to rank for --content-type reasoning")
        return []
    model = embed.model_id()
    vecs = Vectors(store, cfg.vectors_dir, model)
    factory = _LazyEmbedder()
    ready = store.get_meta("vectors_model") == model and int(store.get_meta("vector_seq") or 0) > 0
    try:
        pending = vecs.pending() if ready else 0
        if fresh and cfg.embed.value:
            small = not ready and store.conn.execute(
                "SELECT count(*) <= ? FROM (SELECT 1 FROM records LIMIT ?)",
                (SEARCH_EMBED_LIMIT, SEARCH_EMBED_LIMIT + 1)).fetchone()[0]
            if (ready and 0 < pending <= SEARCH_EMBED_LIMIT) or small:
                with writer_lock(cfg, 0.0) as acquired:
                    if acquired:  # a new session (or a tiny store) is embedded on the spot
                        vecs.embed_pending(factory)
                ready = store.get_meta("vectors_model") == model and int(store.get_meta("vector_seq") or 0) > 0
                pending = vecs.pending() if ready else 0
        if ready and pending > SEARCH_EMBED_LIMIT:
            notes.append(_coverage_note(store, pending))
        if not ready:
            if mode == "hybrid":
                notes.append("no embeddings yet: hybrid search fell back to lexical (`backscroll index` embeds)")
            return None
        qvec = vecs.query_vector(plan.meaning or plan.text, factory)
    except SemanticUnavailableError as exc:
        if mode == "semantic":
            raise
        notes.append(f"semantic ranking unavailable ({exc.message}); used lexical search")
        return None
    memo = {} if memo is None else memo
    if "similarities" not in memo:  # a hinted search ranks twice: score every vector once
        memo["similarities"] = vecs.similarities(qvec)
    ranked = [(i, c) for i, c in vecs.top(*memo["similarities"], depth, _semantic_allowed(store, filters))
              if c >= SEMANTIC_FLOOR]
    if vecs.cache_damaged:
        acquired = False
        if not store.readonly:
            with writer_lock(cfg, 0.0) as acquired:
                if acquired:
                    vecs.write_matrix()
        notes.append("the vector cache was unreadable; answered from the store"
                     + (" and rebuilt the cache" if acquired else " (`backscroll index` rebuilds it)"))
    return ranked


HINT_FILTERS = ("role", "author", "agent", "content_type")


def _now(value: str | datetime | None) -> datetime:
    """``value`` as an aware datetime (an ISO string or a datetime); the current time when None."""

    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else datetime.now(UTC)


@_store_errors
def search(query: str, *, limit: int = 10, role: str | None = None, author: str | None = None,
           agent: str | None = None,
           content_type: str | None = None, project: str | None = None, session: str | None = None,
           since: str | None = None, until: str | None = None, include_echoes: bool = False,
           mode: str = "hybrid", sync: bool = True, max_chars: int = 2000, strict: bool = False,
           rerun: bool = False, caller_session: str | None = None, caller_argv: list[str] | None = None,
           cfg: Config | None = None, home=None, sources=(), notify: Notify = _quiet,
           now: str | datetime | None = None, progress: Progress | None = None, lexical_progress=None) -> SearchResult:
    """Search the record. See README "Searching" for what each option does.

    A date in the query ("last week", "on 9 April") is a soft preference, read against ``now`` (an
    ISO timestamp or a datetime; the current time when None).

    ``--role``, ``--author``, ``--agent`` and ``--content-type`` are hints: unless ``strict``, up to three results
    the filtered search left out come back in ``also_matching``. When the calling agent session
    (``caller_session``, or the session whose in-flight call is ``caller_argv``) already ran the same search in
    this turn, the result is empty with ``repeated`` naming the earlier call, unless ``rerun``.
    ``progress`` and ``lexical_progress`` follow the sync a search runs first (``index``'s bars).
    ``now`` (an ISO timestamp) is also the clock a repeated call is judged by.
    """
    from dataclasses import replace

    from backscroll.retrieval import pipeline
    from backscroll.retrieval.policy import repeat

    if mode not in MODES:
        raise UsageError(f"unknown mode {mode!r}", hint=f"use one of: {', '.join(MODES)}")
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    cfg = _config(cfg, home, sources)
    filters = make_filters(role=role, agent=agent, content_type=content_type, project=project,
                           session=session, since=since, until=until, author=author)
    plan = plan_query(query, analyze, now=_now(now))
    notes: list[str] = list(plan.notes)
    store, lex, fresh = _prepare(cfg, sync, notes, progress=progress, lexical_progress=lexical_progress)
    try:
        if not store.has_records():
            raise _nothing_indexed(store)
        from backscroll.browse import resolve_filters

        filters = resolve_filters(store, filters)
        if not rerun:
            key = repeat.make_key(query, limit=limit, mode=mode, content_type=content_type,
                                  include_echoes=include_echoes, role=role, agent=agent, project=project,
                                  session=session, since=since, until=until, strict=strict, author=author)
            earlier = repeat.find_earlier(store, key, session_id=caller_session, argv=caller_argv,
                                         now=_now(now))
            if earlier is not None:
                return SearchResult(query=plan.text, mode=mode, filters=filters, results=(),
                                    repeated=earlier.to_dict(), notes=(earlier.message(), *notes))

        opts = pipeline.SearchOptions(limit=limit, include_echoes=include_echoes, max_chars=max_chars)
        memo: dict = {}

        def run(f: Filters, o) -> SearchResult:
            semantic = None
            effective = "lexical"
            if mode != "lexical":
                semantic = _semantic_list(store, cfg, plan, f, mode, pipeline.depth(o), fresh, notes, memo)
                if semantic is None:
                    if mode == "semantic":
                        raise SemanticUnavailableError(
                            "no embeddings exist yet, so semantic search cannot run",
                            hint="run `backscroll index` (or `backscroll embed`), or search with --mode lexical")
                else:
                    effective = mode
            return pipeline.run(store, lex, plan, f, o, semantic_list=semantic, mode=effective)

        try:
            result = run(filters, opts)
        except LexicalDamaged as exc:
            _rebuild_damaged(cfg, store, lex, exc, notes)
            result = run(filters, opts)
        hinted = tuple(name for name in HINT_FILTERS if getattr(filters, name))
        if hinted and not strict:
            broad = replace(filters, role=None, author=None, agent=None, content_type=None)
            wide = run(broad, opts)
            shown = {h.rowid for h in result.results}
            keys = {(h.session_id, h.text) for h in result.results}
            extras = [h for h in wide.results
                      if h.rowid not in shown and (h.session_id, h.text) not in keys][:ALSO_MATCHING]
            if extras:
                result = replace(result, also_matching=pipeline.renumber(extras),
                                 dropped_filters=(*result.dropped_filters, *hinted))
        if result.results and all(h.match == "meaning" for h in result.results):
            notes.append("no result holds the query's words: every result matches by meaning only")
        notes = list(dict.fromkeys([*notes, *result.notes]))
        for n in notes:
            notify(n)
        return replace(result, notes=tuple(notes))
    finally:
        store.close()


def _nothing_indexed(store: Store) -> NothingIndexedError:
    """Why nothing is indexed: no session files found, or found but unreadable (or holding no records)."""
    conn = store.conn
    bad = conn.execute("SELECT count(*) FROM source_issues WHERE kind = 'unreadable'").fetchone()[0]
    files = conn.execute("SELECT count(*) FROM source_files").fetchone()[0]
    if bad:
        return NothingIndexedError(f"nothing is indexed yet: {bad} session file(s) were found but could not be read",
                                   hint="`backscroll status` lists them and why")
    if files:
        return NothingIndexedError(f"nothing is indexed yet: {files} session file(s) were found but hold no records",
                                   hint="`backscroll status` shows where sessions are looked for")
    return NothingIndexedError(
        "nothing is indexed yet: no session files were found",
        hint="`backscroll status` shows where sessions are looked for; add more with --source PATH",
    )


def _open_for_reading(cfg: Config, do_sync: bool, notify: Notify = _quiet) -> Store:
    notes: list[str] = []
    store, _lex, _fresh = _prepare(cfg, do_sync, notes, lexical=False)
    for n in notes:
        notify(n)
    if not store.has_records():
        store.close()
        raise NothingIndexedError("nothing is indexed yet", hint="run `backscroll index` first")
    return store


@_store_errors
def show(ident: str, *, context: int = 3, limit: int | None = None, offset: int = 0, sync: bool = True,
         cfg: Config | None = None, home=None, notify: Notify = _quiet):
    """A record with its context, or a whole session (see ``browse.show``)."""
    from backscroll import browse

    browse.check_count("--context", context, 0)
    browse.check_count("--limit", limit, 1)
    browse.check_count("--offset", offset, 0)
    cfg = _config(cfg, home, ())
    store = _open_for_reading(cfg, sync, notify)
    try:
        return browse.show(store, ident, context=context, limit=limit, offset=offset)
    finally:
        store.close()


@_store_errors
def list_sessions(*, agent: str | None = None, project: str | None = None, since: str | None = None,
                  limit: int = 20, offset: int = 0, sync: bool = True, cfg: Config | None = None, home=None,
                  notify: Notify = _quiet) -> list[dict]:
    """Sessions, newest first (see ``browse.list_sessions``)."""
    from backscroll import browse
    from backscroll.dates import parse_when

    _check_agent(agent)
    browse.check_count("--limit", limit, 1)
    browse.check_count("--offset", offset, 0)
    since_ts = parse_when(since) if since else None
    cfg = _config(cfg, home, ())
    store = _open_for_reading(cfg, sync, notify)
    try:
        project = browse.resolve_project(store, project) if project else None
        if agent:
            browse.check_agent_indexed(store, agent)
        return browse.list_sessions(store, agent=agent, project=project, since=since_ts, limit=limit, offset=offset)
    finally:
        store.close()


@_store_errors
def count_sessions(*, agent: str | None = None, project: str | None = None, since: str | None = None,
                   cfg: Config | None = None, home=None) -> int:
    """How many sessions ``list_sessions`` could page through (no sync: it just ran)."""
    from backscroll import browse
    from backscroll.dates import parse_when

    cfg = _config(cfg, home, ())
    store = _open_for_reading(cfg, False)
    try:
        project = browse.resolve_project(store, project) if project else None
        return browse.count_sessions(store, agent=agent, project=project, since=parse_when(since) if since else None)
    finally:
        store.close()


@_store_errors
def status(*, cfg: Config | None = None, home=None, sources=()) -> dict:
    """What is indexed, from where, and what was skipped."""
    from backscroll.status_report import collect

    return collect(_config(cfg, home, sources))

