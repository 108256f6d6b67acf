"""Every ranking constant in one place (``Ranking``), and the calibrations that only depend on them. Pure.

The pipeline reads ``RANKING``; each field says in a line or two what it is for. The measurements that
chose them, and what was tried around them, are in docs/ranking.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from backscroll.retrieval.fusion import Weights

# Below this cosine a meaning-only match is noise: between the best match a nonsense query reaches
# and the weakest related pair (bench/semantic_floor.py; docs/ranking.md).
SEMANTIC_FLOOR = 0.24


@dataclass(frozen=True)
class Ranking:
    """Every fusion constant (docs/ranking.md has their measurements; the weak line is in ``judgement``,
    the per-session list in ``by_session``)."""

    # Meaning: no evidence at the similarity floor (``SEMANTIC_FLOOR``, above a nonsense query's
    # best match), full from ``semantic_full`` (a close MiniLM match), linear in between ...
    semantic_full: float = 0.6
    # ... or by its place among the query's closest records, gone at ``semantic_top``: a long question's
    # answer is first by meaning at a modest cosine, and a place does not move with unrelated records.
    semantic_top: int = 10
    # Hybrid: when no candidate holds ``words_full`` of the query's words, words count (best / full) **
    # confidence: a paraphrase's answer is not buried by records sharing only everyday words.
    words_full: float = 0.5
    words_confidence: float = 2.0
    # Meaning against words (words count 1): a question leans on meaning more than keywords, an
    # identifier or a path do.
    meaning_natural: float = 0.8
    meaning_terms: float = 0.7
    # A tool row is never embedded: its words count as if meaning agreed this much (a log holding every
    # query word is not buried by prose holding a few).
    unembedded_meaning: float = 0.75
    # Hybrid: a record gains ``session_weight`` of the scores of its ``session_records`` best neighbours
    # within ``session_reach`` records: the answer sits beside the question and the follow-up.
    session_weight: float = 0.25
    session_records: int = 2
    session_reach: int = 5
    # Echoes (when asked for) count this much of their evidence, never two in a row while results remain:
    # a pile of earlier searches quoting the query cannot bury the original rows.
    echo_weight: float = 0.9
    # A date in the query: a record inside its window counts (1 + time_boost) times, decaying outside it.
    time_boost: float = 1.0
    # Prose with fewer content words counts by sqrt(words / filler_words): "Bye!" does not win on a name.
    filler_words: int = 9

    def weights(self, shape: str) -> Weights:
        meaning = self.meaning_natural if shape == "natural" else self.meaning_terms
        return Weights(meaning=meaning, unembedded_meaning=self.unembedded_meaning)


RANKING = Ranking()


def semantic_quality(cosine: float, rank: int | None = None) -> float:
    """How strong a semantic match is, in [0, 1]: the larger of two calibrations.

    Absolute: 0 at the floor, 1 from ``semantic_full`` up. By place (when its ``rank`` among the
    query's closest records is known, 1 = the closest): ``1 - ln(rank) / ln(semantic_top)``, so the
    answer that comes first by meaning counts fully even though its cosine is modest (a long or oddly
    worded question), and the credit is gone by ``semantic_top``. A place only counts above the floor:
    a nonsense query's best match is still no evidence. Records that match nothing else in the query
    do not move the place, as they would move a mean and spread.
    """
    r = RANKING
    absolute = max(0.0, min(1.0, (cosine - SEMANTIC_FLOOR) / (r.semantic_full - SEMANTIC_FLOOR)))
    if rank is None or cosine < SEMANTIC_FLOOR or rank >= r.semantic_top:
        return absolute
    return max(absolute, 1.0 - math.log(max(rank, 1)) / math.log(r.semantic_top))
