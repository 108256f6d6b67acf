"""``Backscroll``: a handle on one archive (a data dir), holding its open store and lexical index
for many calls, and the module-level functions ``backscroll.search`` & co. built on it.

Reads (search, show, sessions) do not read new session lines unless asked (``sync=True``); the CLI
asks. Writes (index, embed, rebuild) hold the single-writer lock. Nothing here prints: notices go
to the ``notify`` callback, and every result is a typed object (see ``backscroll.types``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields
from typing import Any

from backscroll.config import Config
from backscroll.errors import NothingIndexedError, UsageError
from backscroll.guard import guarded
from backscroll.reads import Reads
from backscroll.request import SearchRequest
from backscroll.types import Notify, SearchResult, quiet


@dataclass
class IndexOutcome:
    """What ``index()`` did: the sync report, the lexical documents added and the texts embedded."""

    report: Any  # ingest.report.IndexReport
    lexical_added: int = 0
    embedded: int = 0
    embed_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.report.to_dict()
        d["lexical_documents_added"] = self.lexical_added
        d["records_embedded"] = d["units_embedded"] = self.embedded  # (units_embedded: its older name)
        d["embed_seconds"] = round(self.embed_seconds, 3)
        d["notes"] = list(self.notes)
        return d


class Backscroll(Reads):
    """An archive of agent sessions: ``with Backscroll() as bs: bs.search("retry backoff")``.

    ``home`` is the data dir (default: ``$BACKSCROLL_HOME``, else the platform's user data dir);
    ``config`` a resolved ``Config`` instead. The store and the lexical index are opened on the
    first read and kept until ``close()``; vectors are loaded only by a search that ranks by meaning.
    """

    def __init__(self, home=None, config: Config | None = None, *, sources=()):
        from backscroll.config import resolve

        if config is not None and (home is not None or sources):
            raise UsageError("give a data dir (home=, sources=) or a resolved config=, not both",
                             hint="a Config names its data dir and sources already")
        if config is not None and not isinstance(config, Config):
            raise UsageError(f"config= takes a backscroll Config, not {type(config).__name__}",
                             hint="pass home= (a data dir) instead, or backscroll.config.resolve(...)")
        self.config = config if config is not None else resolve(home=home, sources=() if sources is None else sources)
        self._held: tuple[Any, Any] | None = None  # (Store, LexicalIndex) once a read opened them
        self._held_file: tuple[int, int] | None = None  # the store file they were opened on (device, inode)
        self._recent: Any = None  # the MCP server's searches of late (``policy.recent``), once it asks
        # A handle's calls run one at a time: its threads share one SQLite connection, and one thread's close (or
        # the data dir replaced under it) closed it under another's query, which killed the process.
        self.lock = threading.RLock()

    def __enter__(self) -> Backscroll:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the store (the handle opens it again if used after), once a call another thread makes is done."""
        with self.lock:
            if self._held is not None:
                self._held[0].close()
                self._held = None

    def _open(self, sync: bool, notes: list[str], *, lexical: bool = True, progress=None, lexical_progress=None):
        """The store and lexical index, in step with each other (and with the sessions when ``sync``)."""
        from backscroll import access

        if self._held is not None and self._held_file != _file_id(self.config.db_path):
            self.close()  # (the data dir was deleted or replaced under this handle: open what is there now)
        store, lex, fresh = access.prepare(self.config, sync, notes, lexical, progress, lexical_progress,
                                           held=self._held)
        # (a store read as it is because the disk is full is not kept: the next call reads new lines once there is room)
        if self._held is None and (lexical or not store.readonly) and not store.full:
            self._held, self._held_file = (store, lex), _file_id(self.config.db_path)
        return store, lex, fresh

    def _release(self, store) -> None:
        if self._held is None or self._held[0] is not store:
            store.close()

    def _records(self, sync: bool, notify: Notify):
        """The store to read (new lines read first with ``sync``: the first read of a new data dir indexes it)."""
        where = self.config.db_path.parent
        notes: list[str] = []
        store, _lex, _fresh = self._open(sync, notes, lexical=False)
        for n in notes:
            notify(n)
        if not store.has_records():
            from backscroll.access import nothing_indexed
            from backscroll.errors import LockedError
            from backscroll.store.lock import writer_busy

            if writer_busy(self.config):  # (a first index at work, nothing saved yet: not one to run)
                self._release(store)
                raise LockedError("the first index is being built by another backscroll process; nothing is "
                                  "saved yet", hint="try again when it has finished")
            # (once an index ran, why it found nothing; before, that one is to run)
            error = nothing_indexed(store, where) if store.get_meta("last_index_run") else NothingIndexedError(
                f"nothing is indexed in {where} yet",
                hint="run `backscroll index` first, or name the data dir you meant with --home or $BACKSCROLL_HOME")
            self._release(store)
            raise error
        return store

    @guarded
    def index(self, *, embed: bool | None = None, progress=None, lexical_progress=None, embed_progress=None,
              wait: float | None = None, notify: Notify = quiet) -> IndexOutcome:
        """Read every new session line into the store and bring the derived indexes up to date.

        ``embed=None`` follows the configuration (on by default); embedding needs the model package.
        """
        from backscroll import access, embedding
        from backscroll.errors import SemanticUnavailableError
        from backscroll.indexes.lexical import LexicalIndex
        from backscroll.ingest.sync import sync

        cfg = self.config
        if embed is not None and not isinstance(embed, bool):
            raise UsageError(f"embed must be true, false or None, not {embed!r}"[:200])
        do_embed = cfg.embed.value if embed is None else embed
        with access.writing(cfg, wait, hint="wait for it to finish; searches meanwhile answer from the last "
                                             "committed state", notify=notify) as store:
            trusted = store.vouched()  # as a checked writer left it: the index needs no count of the store
            access.refuse_if_damaged(store)
            opened = _file_id(cfg.db_path)
            notes: list[str] = []
            report = sync(store, cfg.roots, progress, access.redactor(cfg), notify=notify)
            _still_there(cfg, opened)  # (before the index and the vectors make a data dir anew)
            added = LexicalIndex(cfg.index_dir).sync(store, notes.append, lexical_progress, check=not trusted)
            outcome = IndexOutcome(report, added, notes=notes)
        _still_there(cfg, opened)
        if do_embed:  # (in turns: searches and another index sync between its steps)
            try:
                outcome.embedded, outcome.embed_seconds = embedding.embed_pending(cfg, embed_progress, notify,
                                                                                 announce=True)
            except SemanticUnavailableError as exc:
                notes.append(f"embedding skipped: {exc.message} (lexical search still works)")
        for n in notes:
            notify(n)
        return outcome

    @guarded
    def embed(self, *, progress=None, wait: float | None = None, notify: Notify = quiet) -> tuple[int, float]:
        """Embed everything already in the store that has no vector; returns (texts embedded, seconds)."""
        from backscroll import access, embedding

        with access.writing(self.config, wait, must_exist=True, notify=notify) as store:  # (no index at work)
            store.sound = store.vouched()  # (vouched for again when it is closed)
        return embedding.embed_pending(self.config, progress, notify)

    @guarded
    def rebuild(self, *, counts: bool = False, notify: Notify = quiet, lexical_progress=None) -> int:
        """Recreate the lexical index and the records' counts (``record_counts``) from the store's records alone;
        returns the number of documents indexed. ``counts``: the counts alone (what `status --check` finds drifted;
        seconds at millions of records), returning how many of them changed. A damaged store is not written:
        ``CorruptStoreError``."""
        from backscroll import access
        from backscroll.indexes.lexical import LexicalIndex

        with access.writing(self.config, None, must_exist=True, notify=notify) as store:
            access.refuse_if_damaged(store)
            if (changed := store.recount()) and not counts:
                notify(f"the record counts had drifted: {changed:,} row{'s' if changed != 1 else ''} mended")
            if counts:
                return changed
            return LexicalIndex(self.config.index_dir).rebuild(store, notify, lexical_progress)  # (beside today's)

    @guarded
    def search(self, query: str | SearchRequest, *, sync: bool = False, notify: Notify = quiet, progress=None,
               lexical_progress=None, rerun_hint: str | None = None, **options: Any) -> SearchResult:
        """Search the archive: ``bs.search("retry backoff", limit=5, since="2w")``, or a ``SearchRequest``.

        The options are the fields of ``backscroll.request.SearchRequest`` (README "Searching"); ``now`` (ISO
        string or datetime) is the clock dates in the query and repeats are read against. ``role``, ``author``,
        ``agent`` and ``content_type`` are hints (``also_matching``) unless ``strict``. When the calling agent
        session (``caller_session``, or found by ``caller_argv`` or ``caller_mcp``) already ran this search in
        this turn, the result is empty and ``repeated`` names the earlier call, unless ``rerun`` (``rerun_hint``
        words how). ``sync`` reads new session lines first; ``archive`` searches the team archive instead.
        """
        from backscroll import access
        from backscroll.indexes.lexical import LexicalDamaged
        from backscroll.retrieval import searching

        if isinstance(query, SearchRequest):
            if options:
                raise TypeError("pass either a SearchRequest or keyword options, not both")
            req = query
        else:
            if isinstance(options.get("caller_argv"), list):
                options["caller_argv"] = tuple(options["caller_argv"])
            unknown = sorted(set(options) - {f.name for f in fields(SearchRequest)})
            if unknown:
                raise UsageError(f"search takes no option {', '.join(map(repr, unknown))}",
                                 hint="the options are SearchRequest's fields: limit, offset, mode, project, since, "
                                      "until, agent, role, ... (README, \"Searching\")")
            req = SearchRequest(query, **options)
        filters, plan = searching.check(req)
        if req.archive is not None:
            from backscroll.team.search import search_archive

            return self._answered(req, search_archive(self.config, req, plan, filters, rerun_hint), notify)
        notes: list[str] = list(plan.notes)
        store, lex, fresh = self._open(sync, notes, progress=progress, lexical_progress=lexical_progress)
        try:
            if not store.has_records():
                raise access.nothing_indexed(store)
            from backscroll.browse import resolve_filters

            filters = searching.spoken_agent_hint(store.has_agent, plan, resolve_filters(store, filters), notes)
            result = searching.repeated(store, req, plan, filters, notes, rerun_hint)
            if result is not None:
                return result
            try:
                result = searching.rank(store, lex, self.config, req, plan, filters, fresh, notes,
                                        unread=access.INDEXING_ELSEWHERE in notes)
            except LexicalDamaged as exc:
                access.rebuild_damaged(self.config, store, lex, exc, notes)
                result = searching.rank(store, lex, self.config, req, plan, filters, fresh, notes,
                                        unread=access.INDEXING_ELSEWHERE in notes)
            return self._answered(req, result, notify, store)
        finally:
            self._release(store)

    def _answered(self, req: SearchRequest, result: SearchResult, notify: Notify, store=None) -> SearchResult:
        """``result`` as every search ends, local or on the archive: over MCP, a server's handle lives on, so the
        same search again gets a note (``policy.recent``); the notes go to ``notify``."""
        if req.caller_mcp:
            result = self._noted_again(store, req, result)
        for n in result.notes:
            notify(n)
        return result

    def _noted_again(self, store, req: SearchRequest, result: SearchResult) -> SearchResult:
        from backscroll.retrieval.policy import recent, repeat

        if self._recent is None:
            self._recent = recent.RecentSearches()
        key = repeat.key_of(req)

        def caller_known() -> bool:  # (an archive search reads the calling session's log in this machine's store)
            if store is not None:
                return repeat.calling_session(store, key, mcp=True) is not None
            if not self.config.db_path.exists():
                return False
            from backscroll.store.db import Store

            local = Store.open_readonly(self.config.db_path)
            try:
                return repeat.calling_session(local, key, mcp=True) is not None
            finally:
                local.close()

        return recent.noted(self._recent, key, result, req.rerun, caller_known)

    @guarded
    def push(self, to: str | None = None, *, dry_run: bool = False, prune: bool = False, again: bool = False,
             sync: bool = False, batch: int = 500, advance=None, notify: Notify = quiet):
        """Send this store's records to the team archive at ``to`` (else ``[archive] url``): ``team.push``."""
        from backscroll.team import push as team

        store = self._records(sync, notify)
        try:
            return team.push_to(self.config, store, to, dry_run=dry_run, prune=prune, again=again, batch=batch,
                                advance=advance or (lambda _n: None))
        finally:
            self._release(store)


def _still_there(cfg: Config, opened: tuple[int, int] | None) -> None:
    """Refuse to report an index whose store was deleted or replaced under it (what it wrote went with it)."""
    if _file_id(cfg.db_path) != opened:
        raise NothingIndexedError(f"the store in {cfg.db_path.parent} was deleted or replaced while this index "
                                  "ran: what it read was not kept", hint="run `backscroll index` again")


def _file_id(path) -> tuple[int, int] | None:
    """Which file ``path`` is now (device, inode), or None when there is none."""
    import os

    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
