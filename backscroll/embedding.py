"""Embedding what the store holds without a vector, for ``index`` and ``embed``: newest first, with progress, an
announcement on a large backlog, and Ctrl-C keeping what was committed. (A search's background worker embeds in
turns with other writers: ``background``.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backscroll.types import Notify, quiet

if TYPE_CHECKING:
    from backscroll.config import Config
    from backscroll.store.db import Store

EMBED_NOTICE_MIN = 500  # pending texts from which `index` says that lexical search is ready first


def embed_pending(store: Store, cfg: Config, progress=None, notify: Notify = quiet,
                  announce: bool = False) -> tuple[int, float]:
    """Embed every prose record without a vector (newest first), then refresh the matrix cache.
    Returns the prose records done (given their vector, or found too short to embed: the count
    ``status`` shows and the announcement names; records with the same text share one embedding) and
    the seconds it took.

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
        searchable = store.record_count()
        notify(f"{searchable:,} records searchable now; embedding {total:,} prose records for meaning-based search, "
               "newest first (Ctrl-C is safe: `backscroll embed` resumes)")
    if progress is not None:
        progress.start(total)
    done = {"records": 0}

    def step(records: int, _units: int, worked: float) -> None:
        done["records"] = records
        if progress is not None:
            progress.advance(records, worked)

    try:
        n = vecs.embed_pending(lambda: embed.load(bulk=True), progress=step)
    except KeyboardInterrupt:
        if progress is not None:
            progress.finish()
            progress = None
        notify(f"embedding interrupted: {done['records']:,} of {total:,} prose records were done and are kept; "
               "`backscroll embed` (or the next `index`) resumes")
        raise
    finally:
        if progress is not None:
            progress.finish()
    pruned = vecs.prune_orphans()
    vecs.refresh_matrix(force=n > 0 or pruned > 0)
    vecs.prune_query_cache()
    return total - vecs.pending(), time.perf_counter() - t0
