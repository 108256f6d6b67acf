"""``backscroll eval``: recall@k and MRR of a query file, per category and overall.

A query file (TOML) lists queries with the distinctive text their answer must contain::

    [corpus]                       # optional: index these sources into a throw-away home first
    sources = ["claude:corpus/.claude/projects", "codex:corpus/.codex/sessions"]

    [[query]]
    text = "what did we pick for calendar arithmetic"
    expected = "pendulum over arrow"   # a distinctive substring of the target record
    category = "paraphrase"            # optional
    session = "…"                      # optional: the hit must be in this session
    role = "user"                      # optional filters: role agent content_type project since until
    include_echoes = false             # mode = "hybrid" | "lexical" | "semantic"
    allow_also_matching = true         # the target may come back in also_matching (a guessed filter)

Without ``[corpus]`` the queries run against the configured home (your own sessions). Every query
run with the default echo policy is also checked for leaked echoes.
"""

from __future__ import annotations

import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import UsageError

QUERY_KEYS = {"text", "expected", "category", "session", "role", "agent", "content_type", "project", "since",
              "until", "include_echoes", "mode", "allow_also_matching"}
SEARCH_KEYS = ("role", "agent", "content_type", "project", "since", "until", "include_echoes", "mode")


@dataclass(frozen=True)
class EvalQuery:
    text: str
    expected: str
    category: str = "default"
    session: str | None = None
    options: dict = field(default_factory=dict)
    allow_also_matching: bool = False


@dataclass
class QueryOutcome:
    query: EvalQuery
    rank: int | None  # 1-based rank of the first matching hit within k, else None
    above: list[str]  # snippets of what ranked above (or the top k, on a miss)
    echo_leaks: int
    where: str = "results"  # or "also_matching"


@dataclass
class EvalReport:
    k: int
    mode: str | None
    outcomes: list[QueryOutcome]

    def _stats(self, items: list[QueryOutcome]) -> dict:
        n = len(items)
        hits = sum(1 for o in items if o.rank is not None)
        mrr = sum(1.0 / o.rank for o in items if o.rank) / n if n else 0.0
        return {"queries": n, "found": hits, "recall": round(hits / n, 4) if n else 0.0, "mrr": round(mrr, 4)}

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

    def to_dict(self) -> dict:
        return {
            "k": self.k, "mode": self.mode, "overall": self.overall, "categories": self.by_category(),
            "misses": [{"text": o.query.text, "category": o.query.category, "expected": o.query.expected,
                        "ranked_above": o.above} for o in self.outcomes if o.rank is None],
            "queries": [{"text": o.query.text, "category": o.query.category, "rank": o.rank, "where": o.where,
                         "echo_leaks": o.echo_leaks} for o in self.outcomes],
        }


def load_queries(path: Path) -> tuple[list[EvalQuery], list[str]]:
    """Read a query file; returns the queries and the corpus sources (absolute), if any."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"no query file at {path}", hint="see `backscroll eval --help` for the format") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    base = Path(path).resolve().parent
    sources = []
    for spec in (data.get("corpus") or {}).get("sources", []):
        agent, sep, rel = spec.partition(":") if ":" in spec and not spec.startswith("/") else ("", "", spec)
        p = Path(rel if sep else spec)
        p = p if p.is_absolute() else base / p
        sources.append(f"{agent}:{p}" if sep else str(p))
    queries = []
    for i, item in enumerate(data.get("query", []), start=1):
        unknown = set(item) - QUERY_KEYS
        if unknown or not item.get("text") or not item.get("expected"):
            raise UsageError(f"{path}: query {i} needs text and expected" +
                             (f"; unknown keys {sorted(unknown)}" if unknown else ""))
        queries.append(EvalQuery(
            text=item["text"], expected=item["expected"], category=item.get("category", "default"),
            session=item.get("session"), options={k: item[k] for k in SEARCH_KEYS if k in item},
            allow_also_matching=bool(item.get("allow_also_matching")),
        ))
    if not queries:
        raise UsageError(f"{path} has no [[query]] entries")
    return queries, sources


def _matches(hit, q: EvalQuery) -> bool:
    return q.expected in hit.text and (q.session is None or hit.session_id == q.session)


def run_eval(path: Path, *, k: int = 5, mode: str | None = None, home=None, embed: bool = True,
             notify=lambda _m: None) -> EvalReport:
    """Index the file's corpus (if it names one) into a temporary home and run every query."""
    from . import api
    from .config import resolve

    queries, sources = load_queries(path)
    tmp = None
    if sources:
        tmp = tempfile.TemporaryDirectory(prefix="backscroll-eval-")
        cfg = resolve(home=tmp.name, sources=sources, env={"HOME": tmp.name})
        want_embed = embed and mode != "lexical"
        api.index(cfg=cfg, embed=want_embed, notify=notify)
    else:
        cfg = resolve(home=home)
        api.index(cfg=cfg, notify=notify)
    try:
        outcomes = []
        for q in queries:
            opts = dict(q.options)
            if mode:
                opts["mode"] = mode
            result = api.search(q.text, cfg=cfg, limit=k, sync=False, rerun=True, max_chars=0, **opts)
            ranked = list(result.results[:k])
            rank = next((h.rank for h in ranked if _matches(h, q)), None)
            where = "results"
            if rank is None and q.allow_also_matching:
                extra = next((i for i, h in enumerate(result.also_matching, start=1) if _matches(h, q)), None)
                if extra is not None:  # the extras are a section of their own: rank within it
                    rank, where = extra, "also_matching"
            default_policy = not opts.get("include_echoes") and opts.get("content_type") != "tool"
            leaks = sum(1 for h in (*result.results, *result.also_matching) if h.is_echo) if default_policy else 0
            cut = (rank - 1) if rank else len(ranked)
            above = [f"[{h.role}{' echo' if h.is_echo else ''}] {h.snippet[:120]}" for h in ranked[:cut]]
            outcomes.append(QueryOutcome(q, rank, above, leaks, where))
        return EvalReport(k, mode, outcomes)
    finally:
        if tmp is not None:
            tmp.cleanup()
