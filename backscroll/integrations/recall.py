"""What a recall hook finds: the strong matches for a prompt (or a branch) in the lexical index.

The rules (rare words, coverage) are described in ``integrations/hooks.py``; the constants are here.
"""

from __future__ import annotations

import os
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

RARE_DF = 50
RARE_SHARE = 0.03  # tuned on bench/hooks.py: no false injection on the unrelated set
RARE_MIN_DF = 3  # a small index: a word in three documents is still rare
MIN_RARE = 2
MIN_COVERAGE = 0.6
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


def rare_words(words: list[str], doc_freq, num_docs: int) -> list[str]:
    """The words that are rare in the index (but present): the ones a match must cover."""
    limit = min(RARE_DF, max(RARE_MIN_DF, int(num_docs * RARE_SHARE)))
    return [w for w in words if 0 < doc_freq(w) <= limit]


def is_strong(covered: int, rare: int, unknown: int = 0) -> bool:
    """Enough of the prompt's telling words: ``unknown`` counts the words no record holds at all (a
    prompt mostly about things never discussed is about something new, whatever two words it shares)."""
    return rare >= MIN_RARE and covered >= MIN_RARE and covered / (rare + unknown) >= MIN_COVERAGE


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

    freq = {w: df(w) for w in words}
    rare = rare_words(words, freq.__getitem__, n)
    unknown = sum(1 for w in words if freq[w] == 0 and not searcher.doc_freq("parts", w))
    if len(rare) < MIN_RARE:
        return []
    ranked = lex.search(LexicalQuery(tuple(rare)), Filters(project=project), content_type="text", echo=False,
                        limit=CANDIDATES)
    if not ranked:
        return []
    store = Store.open_readonly(cfg.db_path)
    try:
        ids = [rid for rid, _s in ranked]
        rows = {r[0]: r[1:] for r in store.conn.execute(
            f"SELECT id, record_id, session_id, agent, project, timestamp, text, source_path, role FROM records "
            f"WHERE id IN ({','.join('?' * len(ids))}) AND is_echo = 0", ids)}
        answers = {rid: _answer(store, rid, row[1]) for rid, row in rows.items() if row[7] == "user"}
    finally:
        store.close()
    rare_stems = {w: stem(w) for w in rare}
    out: list[Recall] = []
    seen_text: set[str] = set()
    for rid in ids:
        if rid not in rows:
            continue
        record_id, session_id, agent, proj, ts, text, source_path, _role = rows[rid]
        answer = answers.get(rid)
        if record_id in skip or (answer and answer[0] in skip) or _excluded(session_id, source_path, inp) \
                or "<backscroll-recall" in text:
            continue
        tokens = set(analyze(text))
        stems = {stem(t) for t in tokens}
        covered = tuple(w for w in rare if w in tokens or rare_stems[w] in stems)
        if not is_strong(len(covered), len(rare), unknown):
            continue
        key = " ".join(text.split())[:200]
        if key in seen_text:
            continue
        seen_text.add(key)
        if answer is not None:
            out.append(Recall(answer[0], session_id, agent, proj, ts, text, covered, answer[1], record_id))
        else:
            out.append(Recall(record_id, session_id, agent, proj, ts, text, covered))
        if len(out) >= max_hits:
            break
    return out


def _answer(store, rid: int, session_id: str) -> tuple[str, str] | None:
    """The answer a question got: the turn's last assistant prose (its conclusion), before the next prompt."""
    nxt = store.conn.execute(
        "SELECT coalesce(min(id), 9223372036854775807) FROM records WHERE session_id = ? AND id > ? "
        "AND role = 'user' AND content_type = 'text' AND is_echo = 0", (session_id, rid)).fetchone()[0]
    row = store.conn.execute(
        "SELECT record_id, text FROM records WHERE session_id = ? AND id > ? AND id < ? AND is_echo = 0 "
        "AND role = 'assistant' AND content_type = 'text' AND length(trim(text)) > 0 ORDER BY id DESC LIMIT 1",
        (session_id, rid, nxt)).fetchone()
    return None if row is None else (row[0], row[1])


def _snippet(text: str, words: tuple[str, ...], width: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    low = flat.lower()
    at = min((i for i in (low.find(w) for w in words) if i >= 0), default=0)
    start = max(0, at - width // 3)
    piece = flat[start:start + width]
    return ("…" if start else "") + piece + "…"
