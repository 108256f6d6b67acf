"""The local store's meaning: the query vector, a few new records embedded on the spot, the records closest
to the query within a scope, the query's cosine to any other record, and the notes on what the ranking covers.
"""

from __future__ import annotations

from collections.abc import Iterable

from backscroll.background import SEARCH_EMBEDS
from backscroll.config import Config
from backscroll.errors import CorruptStoreError, SemanticUnavailableError
from backscroll.store.db import Store
from backscroll.store.evidence import allowed_query
from backscroll.store.lock import writer_lock
from backscroll.types import Filters

ADMIT_REACH = 16384  # closest records checked against a scope before its whole set is read instead


class _LazyEmbedder:
    """Loads the query-time embedder on first use only (lexical searches never pay for it)."""

    def __init__(self):
        self._e = None

    def __call__(self):
        if self._e is None:
            from backscroll.indexes.embed import load

            self._e = load(bulk=False)
        return self._e


def _semantic_allowed(store: Store, filters: Filters, memo: dict) -> set[int] | None:
    """Record ids the filters allow, for the semantic list (None when nothing is filtered); kept in
    ``memo``, so a hinted search (ranked twice) reads each set once."""
    key = ("allowed", filters)
    if key not in memo:
        memo[key] = store.allowed_prose(filters)
    return memo[key]


def _what_embeds(cfg: Config) -> str:
    """Who embeds the prose still without a vector, for a note: a run at work, the background worker at work (a
    syncing search has started it by now, if it starts one), else ``backscroll embed`` (``index`` skips it under
    ``embed = false``, and a ``--no-sync`` search starts no worker)."""
    from backscroll import background
    from backscroll.embedding import foreground_running

    if foreground_running(cfg):
        return "an `index` or `embed` at work"
    if background.running(cfg):
        return "the background worker at work"
    return "`backscroll embed`"


def _coverage_note(store: Store, pending: int, cfg: Config) -> str:
    """How much of the prose the semantic ranking covers (a partly embedded store), and what finishes it."""
    prose = store.prose_count()
    share = max(0, prose - pending) * 100 // max(prose, 1)
    return (f"meaning-based ranking covers {share}% of prose ({pending:,} texts not embedded yet); "
            f"{_what_embeds(cfg)} finishes it")


def _unready_note(made_by: str | None, model: str, cfg: Config) -> str:
    """Why a hybrid search ranked by words alone: no vectors yet, or vectors of another embedder than this one."""
    if made_by and made_by != model:  # (a background worker never switches the store's model)
        return (f"the embeddings were made by another embedder ({made_by[:80]}), not this one ({model[:80]}): hybrid "
                "search fell back to lexical (`backscroll embed` embeds again with this one)")
    return f"no embeddings yet: hybrid search fell back to lexical ({_what_embeds(cfg)} embeds the prose)"


def cosines(store: Store, memo: dict, ids: Iterable[int]) -> dict[int, float]:
    """The query's exact cosine to each of ``ids`` that has a vector (the stored float vectors: the matrix's int8
    rows only choose the closest), once a search has its query vector (``nearest``); empty before."""
    if "query" not in memo:
        return {}
    from backscroll.indexes.packing import unpack

    ids = list(ids)
    found = store.vectors_of(ids, memo["vectors"].model) if ids else {}
    query = memo["query"]
    return {i: float(unpack(blob, len(query)) @ query) for i, blob in found.items()}


def nearest(store: Store, cfg: Config, plan, scope: Filters, mode: str, depth: int, fresh: bool, notes: list[str],
            memo: dict) -> list[tuple[int, float]] | None:
    """The prose records in ``scope`` closest in meaning to the query (``(id, cosine)``, closest first), or None
    when there are no vectors to rank with (or no model to use). The query is embedded and scored against every
    vector once a search (``memo``)."""
    if "similarities" not in memo:
        if memo.get("unready"):
            return None
        try:
            ready = _ready(store, cfg, plan, mode, fresh, notes, memo)
        except CorruptStoreError as exc:  # (damage the vectors' side alone may hold: words still answer)
            if mode != "hybrid":
                raise
            notes.append(f"semantic ranking unavailable ({exc.message}); used lexical search "
                         "(`backscroll status --check` names the damage)")
            ready = False
        if not ready:
            memo["unready"] = True
            return None
    import numpy as np

    ids, scores = memo["similarities"]
    vecs = memo["vectors"]
    admit = None if allowed_query(scope) is None else (lambda batch: store.allowed_among(scope, batch))
    closest = vecs.top(ids, scores, depth, admit, reach=ADMIT_REACH)
    if closest is None:  # a narrow scope: its whole set, read once
        allowed = _semantic_allowed(store, scope, memo) or set()
        mask = np.isin(ids, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
        closest = vecs.top(ids[mask], scores[mask], depth) or []
    exact = cosines(store, memo, [i for i, _c in closest])
    return sorted(((i, exact.get(i, c)) for i, c in closest), key=lambda x: -x[1])


def _ready(store: Store, cfg: Config, plan, mode: str, fresh: bool, notes: list[str], memo: dict) -> bool:
    """Score the query against every vector into ``memo`` (a search embeds a few new records itself first,
    under the writer lock, never beside an ``index``); False when there are no vectors or no model."""
    from backscroll.indexes import embed
    from backscroll.indexes.vectors import Vectors

    model = embed.model_id()
    vecs = Vectors(store, cfg.vectors_dir, model)
    factory = _LazyEmbedder()
    ready = store.get_meta("vectors_model") == model and store.meta_count("vector_seq") > 0
    try:
        pending = vecs.pending() if ready else 0
        if fresh and cfg.embed.value:
            # never embedded: its waiting prose counts (not its tool rows, which are never embedded); on another
            # model's vectors, all its prose, embedded again
            waiting = store.pending_prose if store.get_meta("vectors_model") in (None, model) else store.prose_count
            small = not ready and waiting(at_most=SEARCH_EMBEDS + 1) <= SEARCH_EMBEDS
            if (ready and 0 < pending <= SEARCH_EMBEDS) or small:
                with writer_lock(cfg, 0.0) as acquired:
                    if acquired:  # a new session (or a tiny store) is embedded on the spot
                        vecs.embed_pending(factory)
                ready = store.get_meta("vectors_model") == model and store.meta_count("vector_seq") > 0
                pending = vecs.pending() if ready else 0
        if ready and pending > SEARCH_EMBEDS:
            notes.append(_coverage_note(store, pending, cfg))
        if not ready and embed.unusable() is not None:  # its own error, not advice to embed with it
            factory()
        if not ready:
            if mode == "hybrid":
                notes.append(_unready_note(store.get_meta("vectors_model"), model, cfg))
            return False
        qvec = vecs.query_vector(plan.meaning or plan.text, factory)
    except SemanticUnavailableError as exc:
        if mode == "semantic":
            raise
        notes.append(f"semantic ranking unavailable ({exc.message}); used lexical search")
        return False
    memo["similarities"] = vecs.similarities(qvec)
    memo["vectors"] = vecs
    memo["query"] = qvec.astype("float32")
    if vecs.cache_damaged:
        acquired = False
        if not store.readonly:
            with writer_lock(cfg, 0.0) as acquired:
                if acquired:
                    vecs.write_matrix()
        notes.append("the vector cache was unreadable; answered from the store"
                     + (" and rebuilt the cache" if acquired else " (`backscroll index` rebuilds it)"))
    return True
