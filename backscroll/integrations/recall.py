"""What a recall hook finds: the past passages a prompt (or a branch) is about, judged as a search is.

The prompt is searched as any query is (``retrieval.searching.answer``: words and meaning, the prose of other
sessions, read-only), and judged by the same judgement (``retrieval.relevance``) as fitted for the recall
hooks (a fit of their own in ``relevance.json``; today the search's weights at a stricter point): a hook
speaks unasked, so an everyday request ("commit and push", "make the error friendlier") must find nothing,
however many records share its words. What a prompt recalls comes from the project the agent runs in when
the history holds other sessions there: another project's "add a dark mode toggle" is not this one's past work. A
question is recalled with the answer it got (its turn's last assistant prose). docs/recall-hooks.md tells
how it was measured.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from backscroll.retrieval.query import QueryPlan
    from backscroll.store.db import Store
    from backscroll.types import SearchResult

MAX_HITS = 3
SNIPPET = 360
CANDIDATES = 20  # results asked of the search: the caller's own session and passages already injected fall out
MAX_PROMPT = 2000  # characters of a prompt searched (a pasted log says what it is about early)


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


@dataclass(frozen=True)
class Place:
    """Where the agent runs: its project (named as ingest names a session's), its repository's folder, if on
    disk, and the name its ``origin`` remote gives it (as Codex names a session, even in a worktree elsewhere)."""

    project: str
    folder: str | None = None
    remote: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.project, self.remote) if self.remote else (self.project,)

    def holds(self, project: str | None, cwd: str | None) -> bool:
        """Whether a session of ``project`` run in ``cwd`` ran here. Pure."""
        if project and project.casefold() in {name.casefold() for name in self.names}:
            return True
        top = (self.folder or "").rstrip("/")
        return bool(top and cwd and (cwd.rstrip("/") == top or cwd.startswith(top + "/")))


def place_of(cwd: str | None) -> Place | None:
    """The place an agent running in ``cwd`` works in; None without a cwd, or in the home folder or ``/`` (never a
    project)."""
    from backscroll.ingest.projects import origin_url, project, remote_name, repository_folder

    if not cwd or not cwd.startswith("/"):
        return None
    where = os.path.normpath(cwd)
    if where in ("/", os.path.normpath(os.path.expanduser("~"))) or (name := project(where)) is None:
        return None
    folder = repository_folder(where)
    url = origin_url(folder) if folder else None
    return Place(name, folder, remote_name(url) if url else None)


@dataclass(frozen=True)
class Found:
    """What a prompt recalls, and how sure the judgement (as fitted for a hook) was that the history answers it,
    beside how sure a hook must be to speak (``sure``: None when nothing was judged); ``elsewhere``: the hits
    left out for lying in other projects than the agent's (all of them when the best one does)."""

    recalls: list[Recall]
    sure: tuple[float, float] | None = None
    elsewhere: int = 0


def prompt_query(prompt: str | None) -> str | None:
    """What a prompt asks of the history: the prompt without the recall block a hook put in it before; None when it
    asks nothing, or names nothing a past session could be about ("yes", "run the tests": ``everyday_request``)."""
    from backscroll.retrieval.policy.everyday_request import is_everyday

    if prompt and "<backscroll-recall" in prompt:
        from backscroll.ingest.recall_blocks import split_recall

        prompt = split_recall(prompt)[0]
    return prompt if prompt and prompt.strip() and not is_everyday(prompt[:MAX_PROMPT]) else None


def _excluded(row_session: str, source_path: str | None, inp: HookInput) -> bool:
    sid = inp.session_id
    if sid and (row_session == sid or row_session.startswith(sid + ":")):
        return True
    return bool(inp.transcript_path and source_path
                and os.path.abspath(source_path) == os.path.abspath(inp.transcript_path))


@contextmanager
def _searched(cfg, query: str, project: str | None) -> Iterator[tuple[SearchResult, QueryPlan, Store] | None]:
    """The hook's search of ``query`` (the search's results as judged for a hook), its plan and the read-only
    store it ran on, open while in use; None when there is no history or nothing to search for."""
    from backscroll.errors import LockedError
    from backscroll.indexes.lexical import LexicalIndex
    from backscroll.request import SearchRequest
    from backscroll.retrieval.local import LocalSource
    from backscroll.retrieval.searching import answer, check
    from backscroll.store.db import Store
    from backscroll.store.upgrade import behind, upgrade_apart

    lex = LexicalIndex(cfg.index_dir)
    if not cfg.db_path.exists() or not lex.open_for_read(older=True) or lex.index is None:  # (never rebuilt here)
        yield None
        return
    if behind(cfg.db_path):  # (at millions of records the upgrade outlasts the hook's deadline: it runs apart)
        if failed := upgrade_apart(cfg.db_path):
            raise LockedError(f"the store could not be upgraded for this version of backscroll ({failed}): nothing "
                              "is recalled until it is; `backscroll status` upgrades it and says why not",
                              reason="upgrade-failed")
        raise LockedError("the store is being upgraded for this version of backscroll, in a process of its own "
                          "(once; a minute for millions of records): nothing is recalled until it is done",
                          reason="upgrading")
    req = SearchRequest(query=query[:MAX_PROMPT], mode="hybrid", limit=CANDIDATES, project=project,
                        content_type="text", strict=True, rerun=True, max_chars=0)
    filters, plan = check(req)
    if plan.asks_nothing or plan.date_only:
        yield None
        return
    store = Store.open_readonly(cfg.db_path)
    try:
        yield answer(LocalSource(store, lex, cfg, plan, req.mode, False), req, plan, filters, point="hook"), plan, store
    finally:
        store.close()


def find(cfg, query: str, inp: HookInput, *, project: str | None = None, here: Place | None = None,
         skip: AbstractSet[str] = frozenset(), max_hits: int = MAX_HITS) -> Found:
    """What ``query`` recalls from sessions other than the caller's: the search's results as judged for a
    hook (nothing when the judgement says the history holds no answer). ``project`` scopes the search;
    ``here``, where the agent runs, keeps what the whole history's judgement recalls to the sessions run there,
    when the history holds any besides the caller's."""
    from backscroll.indexes.lexical import analyze, stem
    from backscroll.ingest.redact_again import behind
    from backscroll.retrieval import relevance

    with _searched(cfg, query, project) as searched:
        if searched is None:
            return Found([])
        result, plan, store = searched
        fit = relevance.model("hook", result.mode) if result.evidence else None
        sure = (relevance.probability(result.evidence, fit), fit.point) if fit else None
        found = result.results
        elsewhere = 0
        if here is not None and found and store.holds_place(here.names, here.folder, inp.session_id):
            # (another project's everyday request; and when the best answer lies elsewhere, what is left is no answer)
            mine = tuple(h for h in found if here.holds(h.project, h.cwd)) if here.holds(found[0].project,
                                                                                        found[0].cwd) else ()
            found, elsewhere = mine, len(found) - len(mine)
        rows = store.recall_rows([h.rowid for h in found if h.rowid is not None])
        answers = {rid: store.turn_answer(row[1], rid) for rid, row in rows.items() if row[7] == "user"}
        if behind(store):  # records under older rules: the pass runs with the next search or index
            rows, answers = _redacted(rows, answers)
    words = [t for t in plan.lexical_terms if len(t) >= 3]
    out: list[Recall] = []
    seen_text: set[str] = set()
    used: set[str] = set()  # each record once a block: an answer recalled with its question is not recalled again
    picked = 0  # the passages a block holds, those injected before included: a weaker one does not take their place
    for hit in found:
        if picked >= max_hits:
            break
        if hit.rowid not in rows:
            continue
        record_id, session_id, agent, proj, ts, text, source_path, _role = rows[hit.rowid]
        answer_of = answers.get(hit.rowid)
        ids = {record_id, answer_of[0]} if answer_of else {record_id}
        if ids & used or _excluded(session_id, source_path, inp) or "<backscroll-recall" in text:
            continue
        key = " ".join(text.split())[:200]
        if key in seen_text:
            continue
        seen_text.add(key)
        used |= ids
        picked += 1
        if ids & skip:
            continue
        tokens = set(analyze(text))
        stems = {stem(t) for t in tokens}
        covered = tuple(w for w in words if w in tokens or stem(w) in stems)
        if answer_of is not None:
            out.append(Recall(answer_of[0], session_id, agent, proj, ts, text, covered, answer_of[1], record_id))
        else:
            out.append(Recall(record_id, session_id, agent, proj, ts, text, covered))
    return Found(out, sure, elsewhere)


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
