"""``backscroll eval``: hit@1, recall@k, MRR and session hit@1 of a query file, per category and overall.

What a user feels is rank 1: ``hit@1`` (the answer came first), ``MRR`` (1 / its rank), ``recall@k``
(it is in the top k) and ``session hit@1`` (the first distinct session in rank order is the
conversation that holds the answer). The query file's format, and reading it, are ``eval_file``.
Every query run with the default echo policy is also checked for leaked echoes.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from backscroll.errors import UsageError
from backscroll.eval_file import EvalQuery, Gate, load_gate, load_queries
from backscroll.sanitize import shorten


@dataclass
class QueryOutcome:
    query: EvalQuery
    rank: int | None  # 1-based rank of the first matching hit within k of the ranked list, else None
    above: list[str]  # snippets of what ranked above (or the top k, on a miss)
    echo_leaks: int
    where: str = "results"  # or "also_matching"
    session_rank: int | None = None  # rank of the answer's session among distinct sessions, in rank order
    kept: bool = True  # the judgement kept the answer in ``results`` (not among the weak matches)


@dataclass
class EvalReport:
    k: int
    mode: str | None
    outcomes: list[QueryOutcome]
    gate: Gate | None = None

    def _stats(self, items: list[QueryOutcome]) -> dict:
        n = len(items)
        hits = sum(1 for o in items if o.rank is not None)
        first = sum(1 for o in items if o.rank == 1)
        session_first = sum(1 for o in items if o.session_rank == 1)
        mrr = sum(1.0 / o.rank for o in items if o.rank) / n if n else 0.0
        session_found = sum(1 for o in items if o.session_rank is not None and o.session_rank <= self.k)
        session_mrr = sum(1.0 / o.session_rank for o in items if o.session_rank) / n if n else 0.0
        held_back = sum(1 for o in items if o.rank is not None and not o.kept)

        def share(x: int | float) -> float:
            return round(x / n, 4) if n else 0.0

        return {"queries": n, "found": hits, "hit1": share(first), "recall": share(hits), "mrr": round(mrr, 4),
                "session_hit1": share(session_first), "session_recall": share(session_found),
                "session_mrr": round(session_mrr, 4), "weak_only": held_back,
                "kept": round(1 - held_back / hits, 4) if hits else 1.0}

    @property
    def overall(self) -> dict:
        d = self._stats(self.outcomes)
        d["echo_leaks"] = sum(o.echo_leaks for o in self.outcomes)
        return d

    def by_category(self) -> dict[str, dict]:
        cats: dict[str, list[QueryOutcome]] = {}
        for o in self.outcomes:
            cats.setdefault(o.query.category, []).append(o)
        return {c: self._stats(items) for c, items in sorted(cats.items())}

    def table(self) -> dict[str, dict]:
        """The statistics of every category, and "overall"."""
        return {**self.by_category(), "overall": self.overall}

    def to_dict(self) -> dict:
        return {
            "k": self.k, "mode": self.mode, "gate_failures": self.gate_failures(), "overall": self.overall,
            "categories": self.by_category(),
            "misses": [{"id": o.query.id, "text": o.query.text, "category": o.query.category,
                        "expected": o.query.expected, "ranked_above": o.above}
                       for o in self.outcomes if o.rank is None],
            "queries": [{"id": o.query.id, "text": o.query.text, "category": o.query.category, "rank": o.rank,
                         "session_rank": o.session_rank, "where": o.where, "echo_leaks": o.echo_leaks}
                        for o in self.outcomes],
        }

    def gate_failures(self) -> list[str]:
        """What the file's ``[gate]`` rejects: categories below floor - slack, ratchet queries not found."""
        if self.gate is None:
            return []
        out = []
        cats = self.table()
        for cat, floors in sorted(self.gate.floors.items()):
            got = cats.get(cat)
            if got is None:
                out.append(f"{cat}: no queries in this category")
                continue
            for metric, floor in sorted(floors.items()):
                if got.get(metric, 0.0) < floor - self.gate.slack - 1e-9:
                    out.append(f"{cat}: {metric} {got.get(metric, 0.0):.2f} < floor {floor:.2f} - slack "
                               f"{self.gate.slack:.2f}")
        by_id = {o.query.id: o for o in self.outcomes if o.query.id}
        for qid in self.gate.ratchet:
            o = by_id.get(qid)
            if o is None:
                out.append(f"ratchet query {qid!r} is not in the file")
            elif o.rank is None:
                out.append(f"ratchet query {qid!r} ({o.query.text!r}) is no longer found in the top {self.k}")
        return out


@dataclass(frozen=True)
class Paired:
    """One report against another on the same queries, at rank 1: the queries only the first ranks first
    (``won``), those only the other does (``lost``), and the chance of a split at least this uneven
    if neither were better (two-sided exact sign test over ``won + lost``)."""

    won: int
    lost: int

    @property
    def p(self) -> float:
        from math import comb

        n, low = self.won + self.lost, min(self.won, self.lost)
        if n == 0:
            return 1.0
        return min(1.0, 2 * sum(comb(n, i) for i in range(low + 1)) / 2 ** n)

    def to_dict(self) -> dict:
        return {"won": self.won, "lost": self.lost, "p": round(self.p, 4)}


def paired(report: EvalReport, other: EvalReport) -> dict[str, Paired]:
    """Per category (and "overall"), ``report`` against ``other`` query by query at rank 1 (the two
    reports ran the same query file, in the same order)."""
    tally: dict[str, list[int]] = {}
    for mine, theirs in zip(report.outcomes, other.outcomes, strict=True):
        first, other_first = mine.rank == 1, theirs.rank == 1
        for cat in (mine.query.category, "overall"):
            counts = tally.setdefault(cat, [0, 0])
            counts[0] += first and not other_first
            counts[1] += other_first and not first
    return {cat: Paired(won, lost) for cat, (won, lost) in tally.items()}


def behind(report: EvalReport, others: list[EvalReport]) -> dict[str, list[str]]:
    """Per category (and "overall"), the other modes with a higher hit@1 than ``report``: where a fusion
    is worse than one of the rankings it fuses (on the same queries: more of them lost than won)."""
    out: dict[str, list[str]] = {}
    for other in others:
        for cat, pair in paired(report, other).items():
            if pair.lost > pair.won:
                out.setdefault(cat, []).append(str(other.mode))
    return out


def _in_window(hit, q: EvalQuery) -> bool:
    from backscroll.dates import parse_ts

    if q.window is None:
        return True
    if not hit.timestamp:
        return False
    return parse_ts(q.window[0]) <= parse_ts(hit.timestamp) < parse_ts(q.window[1])


def _matches(hit, q: EvalQuery) -> bool:
    return (not q.nothing and q.expected in hit.text and (q.session is None or hit.session_id == q.session)
            and _in_window(hit, q))


def _session_rank(results, q: EvalQuery, judged=()) -> int | None:
    """Where the answer's conversation comes among the distinct sessions of the ranked list, in rank order
    (for a window without a session: the first session with a record in it); a never-discussed question
    ranks first when the judgement leaves ``judged`` empty."""
    if q.nothing:
        return None if judged else 1
    sessions = list(dict.fromkeys(h.session_id for h in results))
    if q.session is None and q.window is not None:
        right = {h.session_id for h in results if _in_window(h, q)}
        return next((n for n, s in enumerate(sessions, start=1) if s in right), None)
    target = q.session or next((h.session_id for h in results if _matches(h, q)), None)
    if target is None:
        return None
    return sessions.index(target) + 1 if target in sessions else None


def run_eval(path: Path, *, k: int = 5, mode: str | None = None, home=None, embed: bool = True,
             notify=lambda _m: None, modes: tuple[str | None, ...] | None = None, corpus_home: Path | None = None,
             bars: dict | None = None):
    """Index the file's corpus (if it names one) into a temporary home, or into ``corpus_home`` (kept,
    and brought up to date by the next run: benchmarks that ask several query files of one corpus),
    and run every query. Without a corpus, the queries run against ``home``.

    With ``modes`` (e.g. ``("lexical", "semantic", None)``) every mode runs over the same index and a
    list of reports comes back, one per mode; otherwise one report for ``mode``. ``bars``: progress for
    ``index`` (its ``progress``, ``lexical_progress`` and ``embed_progress``) and ``queries`` (``start(total)``,
    ``advance(done)``, ``finish()``).
    """
    from backscroll.archive import Backscroll
    from backscroll.config import resolve

    queries, sources = load_queries(path)
    gate, now = load_gate(path)
    tmp = None
    if sources:
        if corpus_home is not None:
            where = str(corpus_home)
        else:
            tmp = tempfile.TemporaryDirectory(prefix="backscroll-eval-")
            where = tmp.name
        cfg = resolve(home=where, sources=sources, env={"HOME": where})
        want_embed: bool | None = embed and (mode != "lexical" or bool(modes))
    else:
        cfg = resolve(home=home)
        want_embed = None  # as configured
    try:
        bars = bars or {}
        with Backscroll(config=cfg) as bs:
            bs.index(embed=want_embed, notify=notify, **{name: bar for name, bar in bars.items() if name != "queries"})
            asked = bars.get("queries")
            if asked is not None:
                asked.start(len(queries) * len(modes or (mode,)))
            try:
                reports = [_run_mode(bs, queries, k, m, now, gate, asked, n * len(queries))
                           for n, m in enumerate(modes or (mode,))]
            finally:
                if asked is not None:
                    asked.finish()
        return reports if modes else reports[0]
    finally:
        if tmp is not None:
            tmp.cleanup()


def _run_mode(bs, queries: list[EvalQuery], k: int, mode: str | None, now: str | None,
              gate: Gate | None, progress=None, before: int = 0) -> EvalReport:
    outcomes = []
    for n, q in enumerate(queries, start=before + 1):
        opts = dict(q.options)
        if mode:
            opts["mode"] = mode
        try:
            result = bs.search(q.text, limit=k, rerun=True, max_chars=0, now=q.now or now, **opts)
        except UsageError as exc:  # (an option of the file's: name the query it is in)
            raise UsageError(f"query {q.id or shorten(q.text, 60)!r}: {exc.message}", hint=exc.hint) from None
        # Finding is measured on the ranked list (what ``--weak`` shows: the results, then the weak
        # matches); judging, as ``kept``: whether the answer found stayed in ``results``.
        ranked = [*result.results, *result.weak_matches][:k]
        rank = next((n for n, h in enumerate(ranked, start=1) if _matches(h, q)), None)
        kept = rank is None or rank <= len(result.results)
        if q.nothing:
            rank = None if result.results else 1
        where = "results"
        if rank is None and q.allow_also_matching:
            extra = next((i for i, h in enumerate(result.also_matching, start=1) if _matches(h, q)), None)
            if extra is not None:  # the extras are a section of their own: rank within it
                rank, where = extra, "also_matching"
        default_policy = not opts.get("include_echoes") and opts.get("content_type") != "tool"
        leaks = sum(1 for h in (*result.results, *result.also_matching) if h.is_echo) if default_policy else 0
        listed = list(result.results[:k]) if q.nothing else ranked
        cut = (rank - 1) if rank else len(listed)
        above = [f"[{h.role}{' echo' if h.is_echo else ''}] {h.snippet[:120]}" for h in listed[:cut]]
        session_rank = _session_rank(result.also_matching if where == "also_matching" else ranked, q,
                                     result.results)  # (in the list where the answer was found, as ``rank``)
        outcomes.append(QueryOutcome(q, rank, above, leaks, where, session_rank, kept))
        if progress is not None:
            progress.advance(n)
    return EvalReport(k, mode, outcomes, gate)
