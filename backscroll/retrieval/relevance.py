"""Whether a search found something that answers the question, or only records that share a word or two with it:
one judgement for every store and surface (a logistic model over ten named features of the question, its scope
and its best hits), fitted for each use: a search's, and a recall hook's, which must stay silent for everyday
requests too. Pure, but for reading the fits (``relevance.json``, by ``bench/relevance.py``). docs/ranking.md,
"Judging relevance", names the features and the data behind them.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

FEATURES = (
    "words",  # the largest idf-weighted share of the question's words a hit holds (words the scope never says count)
    "first_words",  # ... the first hit's
    "specific",  # the largest share of the question's specific words a hit holds: everyday coding words weigh little
    "unknown",  # the idf-weighted share of the question the scope never says
    "cosine",  # the scope's closest record's cosine to the question (0 without a meaning ranking)
    "first_cosine",  # ... the first hit's (0 for a tool output, which has no vector)
    "standout",  # how far the scope's closest record stands above its tenth closest (the noise floor, in a small one)
    "exact",  # a hit holds the question, or every quoted phrase, word for word
    "meaning",  # a meaning ranking spoke (hybrid or semantic, on prose) and found records in scope
    "dated",  # the question names a date and its first hit lies in it (1), or near it (less); 0 without a date
)


@dataclass(frozen=True)
class HitEvidence:
    """What the judgement reads of one hit."""

    words: float  # its idf-weighted share of the question's words, unknown words counted (``evidence.classify``)
    held: frozenset[str]  # the question's words it holds
    cosine: float | None  # its cosine to the question (None: no vector, or no meaning ranking)
    exact: bool  # it holds the question word for word


@dataclass(frozen=True)
class Question:
    """What the judgement needs to know of the question and its scope."""

    weights: Mapping[str, float]  # each word's idf (words no record holds left out)
    unknown: float  # the idf-weighted share of the question the scope never says
    cosines: Sequence[float] | None  # the scope's closest cosines, best first (None: no meaning ranking spoke)
    dated: float = 0.0  # how near the date the question names its first hit lies (``time_window.closeness``)


def features(hits: Sequence[HitEvidence], q: Question) -> tuple[float, ...]:
    """The question's features, in ``FEATURES``' order, from its hits in rank order."""
    from backscroll.retrieval.everyday import everyday

    specific = {t: w * (1 - everyday(t)) for t, w in q.weights.items()}
    total = sum(specific.values())

    def specific_share(h: HitEvidence) -> float:
        return sum(w for t, w in specific.items() if t in h.held) / total * (1 - q.unknown) if total else 0.0

    first = hits[0] if hits else None
    best = q.cosines[0] if q.cosines else 0.0
    tenth = q.cosines[9] if q.cosines and len(q.cosines) > 9 else floor()  # (a small scope: the floor stands in)
    return (round(max((h.words for h in hits), default=0.0), 4), round(first.words if first else 0.0, 4),
            round(max((specific_share(h) for h in hits), default=0.0), 4), round(q.unknown, 4), round(best, 4),
            round((first.cosine or 0.0) if first else 0.0, 4), round(best - tenth, 4),
            float(any(h.exact for h in hits)), float(bool(q.cosines)), round(q.dated, 4))


def floor() -> float:
    from backscroll.retrieval.ranking import SEMANTIC_FLOOR

    return SEMANTIC_FLOOR


USES = ("search", "hook")  # a search's fit; a recall hook's (it speaks unasked, so everyday requests count against)


@dataclass(frozen=True)
class Model:
    weights: tuple[float, ...]
    bias: float
    point: float  # the operating point: a question judged at or above it has an answer


@functools.cache
def model(use: str = "search", mode: str = "hybrid") -> Model:
    """The judgement as fitted for ``use`` (``USES``) in a search of ``mode``: each mode has its own evidence (no
    meaning in lexical mode, no words ranking in semantic)."""
    data = json.loads(resources.files("backscroll.retrieval").joinpath("relevance.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise RuntimeError("relevance.json was fitted on other features: run bench/relevance.py fit")
    fit = data.get(use, {}).get(mode)
    if fit is None:
        raise RuntimeError(f"relevance.json has no fit for a {use} in {mode} mode: run bench/relevance.py fit")
    return Model(tuple(fit["weights"]), fit["bias"], fit["point"])


def probability(x: Sequence[float], m: Model | None = None) -> float:
    """How likely the question has an answer among its hits."""
    m = m or model()
    z = m.bias + sum(w * v for w, v in zip(m.weights, x, strict=True))
    return 1.0 / (1.0 + math.exp(-z))
