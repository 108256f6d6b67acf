"""The meaning-based ranked list a hybrid or semantic search fuses: the query vector, a few new
records embedded on the spot, the similarity floor, and the notes on what the ranking covers.
"""

from __future__ import annotations

from backscroll.config import Config
from backscroll.errors import SemanticUnavailableError
from backscroll.retrieval import time_window
from backscroll.retrieval.ranking import SEMANTIC_FLOOR
from backscroll.store.db import Store
from backscroll.store.lock import writer_lock
from backscroll.types import Filters

SEARCH_EMBED_LIMIT = 64  # new records a search embeds itself (a new session: well under 2 s)


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


def _coverage_note(store: Store, pending: int) -> str:
    """How much of the prose the semantic ranking covers (a partly embedded store)."""
    prose = store.prose_count()
    share = max(0, prose - pending) * 100 // max(prose, 1)
    return (f"meaning-based ranking covers {share}% of prose ({pending:,} texts not embedded yet); "
            "`backscroll embed` finishes it")


def similarity(memo: dict):
    """The query's similarity to every embedded record, from what a ``semantic_list`` call left in
    ``memo``: a lookup for the candidates only the lexical lists found. None when it left nothing. Kept
    in ``memo``, so a hinted search (ranked twice) builds it once."""
    if "similarities" not in memo:
        return None  # (checked before numpy is imported: a lexical search never loads it)
    if "similarity" not in memo:
        import numpy as np

        from backscroll.retrieval.candidates import Similarity

        all_ids, scores = memo["similarities"]

        def cosines(ids) -> dict[int, float]:
            ids = list(ids)
            if not ids or not len(all_ids):
                return {}
            mask = np.isin(all_ids, np.fromiter(ids, dtype=np.int64, count=len(ids)))
            return {int(i): float(c) for i, c in zip(all_ids[mask], scores[mask], strict=True)}

        memo["similarity"] = Similarity(cosines)
    return memo["similarity"]


def semantic_list(store: Store, cfg: Config, plan, filters: Filters, mode: str, depth: int,
                   fresh: bool, notes: list[str], memo: dict | None = None) -> list[tuple[int, float]] | None:
    """The semantic ranking, or None when there are no vectors to rank with (or no model to use). A
    date in the query adds the closest records of its own window (``time_window.within``).

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
            small = not ready and store.record_count(at_most=SEARCH_EMBED_LIMIT + 1) <= SEARCH_EMBED_LIMIT
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
    ids, scores = memo["similarities"]
    ranked = [(i, c) for i, c in vecs.top(ids, scores, depth, _semantic_allowed(store, filters, memo))
              if c >= SEMANTIC_FLOOR]
    window = time_window.within(filters, plan.when) if plan.when is not None else None
    if window is not None:  # a date in the query proposes the closest records of its own window too
        near = [(i, c) for i, c in vecs.top(ids, scores, depth, _semantic_allowed(store, window, memo))
                if c >= SEMANTIC_FLOOR]
        ranked = sorted(dict([*ranked, *near]).items(), key=lambda x: -x[1])
    if vecs.cache_damaged:
        acquired = False
        if not store.readonly:
            with writer_lock(cfg, 0.0) as acquired:
                if acquired:
                    vecs.write_matrix()
        notes.append("the vector cache was unreadable; answered from the store"
                     + (" and rebuilt the cache" if acquired else " (`backscroll index` rebuilds it)"))
    return ranked
