"""What a recall hook finds: the strong matches for a prompt (or a branch) in the lexical index.

The prompt's content words (not stopwords, 3+ characters) are weighted by how rare they are in the
index (idf, ``log((N + 1) / (df + 1))``: a word no record holds weighs the most). The best prose
records of other sessions by words (BM25 over all of them, the first ``JUDGED``) are candidates;
one is recalled when it holds at least ``MIN_COVERAGE`` of the prompt's weight, in plain or stemmed
form, at least ``MIN_COVERED`` of its words, and words telling enough together (``MIN_INFORMATION``).
A prompt mostly about things never discussed is about something new, whatever common words it
shares; a prompt of everyday words ("fix the failing test") recalls nothing however many records
share them; a small history, where no word can be rare, stays silent. A question is recalled with
the answer it got (its turn's last assistant prose). Why these constants: ``docs/recall-hooks.md``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

MIN_COVERAGE = 0.45  # share of the prompt's idf weight a record must hold (two corpora: docs/recall-hooks.md)
MIN_COVERED = 2  # one shared word is never a match
MIN_INFORMATION = 8.0  # the covered words' idf, summed: about two words each in under 2% of the records
JUDGED = 3  # only the best candidates by words are judged: a match further down is not what the prompt is about
MAX_HITS = 3
SNIPPET = 360
CANDIDATES = 40


@dataclass(frozen=True)
class HookInput:
    session_id: str | None
    transcript_path: str | None
    cwd: str | None
    prompt: str | None
    source: str | None


@dataclass(frozen=True)
class Recall:
    """A past passage worth recalling: the matched record, and when it is a question, the answer it got
    (then ``record_id`` is the answer's, the one to open with ``backscroll show``)."""

    record_id: str
    session_id: str
    agent: str
    project: str | None
    timestamp: str | None
    text: str
    covered: tuple[str, ...]
    answer: str | None = None
    question_id: str | None = None


def content_words(text: str, analyze) -> list[str]:
    from backscroll.retrieval.query import STOPWORDS

    return list(dict.fromkeys(t for t in analyze(text[:4000])
                              if len(t) >= 3 and t not in STOPWORDS and not t.isdigit()))[:64]


def idf_weights(words: list[str], doc_freq, num_docs: int) -> dict[str, float]:
    """Each word's weight: rarer in the index is heavier; a word no record holds weighs the most."""
    return {w: math.log((num_docs + 1) / (doc_freq(w) + 1)) for w in words}


def coverage(covered: list[str], weights: dict[str, float]) -> float:
    """The share of the prompt's weight that ``covered`` carries (0 for a prompt without weight)."""
    total = sum(weights.values())
    return sum(weights[w] for w in covered) / total if total > 0 else 0.0


def is_strong(covered: list[str], weights: dict[str, float]) -> bool:
    """Enough of the prompt's telling words, by weight, more than one of them, and telling enough together."""
    return (len(covered) >= MIN_COVERED and coverage(covered, weights) >= MIN_COVERAGE
            and sum(weights[w] for w in covered) >= MIN_INFORMATION)


def _excluded(row_session: str, source_path: str | None, inp: HookInput) -> bool:
    sid = inp.session_id
    if sid and (row_session == sid or row_session.startswith(sid + ":")):
        return True
    return bool(inp.transcript_path and source_path
                and os.path.abspath(source_path) == os.path.abspath(inp.transcript_path))


def find(cfg, query: str, inp: HookInput, *, project: str | None = None, skip: AbstractSet[str] = frozenset(),
         max_hits: int = MAX_HITS) -> list[Recall]:
    """The strong matches for ``query`` from sessions other than the caller's (lexical index only)."""
    from backscroll.indexes.lexical import LexicalIndex, LexicalQuery, analyze, stem
    from backscroll.ingest.redact_again import behind
    from backscroll.store.db import Store
    from backscroll.types import Filters

    if not cfg.db_path.exists():
        return []
    lex = LexicalIndex(cfg.index_dir)
    if not lex.open_for_read() or lex.index is None:
        return []
    searcher = lex.index.searcher()
    n = searcher.num_docs
    words = content_words(query, analyze)

    def df(w: str) -> int:
        return max(searcher.doc_freq("text", w), searcher.doc_freq("stem", stem(w)))

    weights = idf_weights(words, df, n)
    if len(words) < MIN_COVERED or not weights:
        return []
    ranked = lex.search(LexicalQuery(tuple(words)), Filters(project=project), content_type="text", echo=False,
                        limit=CANDIDATES)
    if not ranked:
        return []
    store = Store.open_readonly(cfg.db_path)
    try:
        ids = [rid for rid, _s in ranked]
        rows = store.recall_rows(ids)
        answers = {rid: store.turn_answer(row[1], rid) for rid, row in rows.items() if row[7] == "user"}
        if behind(store):  # records under older rules: the pass runs with the next search or index
            rows, answers = _redacted(rows, answers)
    finally:
        store.close()
    word_stems = {w: stem(w) for w in words}
    out: list[Recall] = []
    seen_text: set[str] = set()
    judged = 0
    for rid in ids:
        if rid not in rows:
            continue
        record_id, session_id, agent, proj, ts, text, source_path, _role = rows[rid]
        answer = answers.get(rid)
        if record_id in skip or (answer and answer[0] in skip) or _excluded(session_id, source_path, inp) \
                or "<backscroll-recall" in text:
            continue
        judged += 1
        if judged > JUDGED:
            break
        tokens = set(analyze(text))
        stems = {stem(t) for t in tokens}
        covered = [w for w in words if w in tokens or word_stems[w] in stems]
        if not is_strong(covered, weights):
            continue
        key = " ".join(text.split())[:200]
        if key in seen_text:
            continue
        seen_text.add(key)
        if answer is not None:
            out.append(Recall(answer[0], session_id, agent, proj, ts, text, tuple(covered), answer[1], record_id))
        else:
            out.append(Recall(record_id, session_id, agent, proj, ts, text, tuple(covered)))
        if len(out) >= max_hits:
            break
    return out


def _redacted(rows: dict, answers: dict) -> tuple[dict, dict]:
    from backscroll.ingest.redact import redact

    return ({rid: (*row[:5], redact(row[5]), *row[6:]) for rid, row in rows.items()},
            {rid: answer and (answer[0], redact(answer[1])) for rid, answer in answers.items()})


def _snippet(text: str, words: tuple[str, ...], width: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    low = flat.lower()
    at = min((i for i in (low.find(w) for w in words) if i >= 0), default=0)
    start = max(0, at - width // 3)
    piece = flat[start:start + width]
    return ("…" if start else "") + piece + "…"
