"""The query file of ``backscroll eval`` (TOML): its format, reading it, and its gate.

A query file lists queries with the distinctive text their answer must contain::

    now = "2026-11-20T12:00:00Z"   # optional: the clock relative dates in queries ("yesterday") read
    [corpus]                       # optional: index these sources into a throw-away home first
    sources = ["claude:corpus/.claude/projects", "codex:corpus/.codex/sessions"]

    [gate]                         # optional: what `--gate` enforces
    slack = 0.05                   # a category may fall this far below its floors
    ratchet = ["lexical-1"]        # ids of queries that must keep being found in the top k
    floors.lexical = { hit1 = 0.75, mrr = 0.8, recall = 1.0 }

    [[query]]
    id = "lexical-1"               # optional: names the query for the ratchet
    text = "what did we pick for calendar arithmetic"
    expected = "pendulum over arrow"   # a distinctive substring of the target record
    category = "paraphrase"            # optional
    session = "…"                      # optional: the hit must be in this session
    role = "user"                      # optional filters: role agent content_type project since until
    include_echoes = false             # mode = "hybrid" | "lexical" | "semantic"
    allow_also_matching = true         # the target may come back in also_matching (a guessed filter)

    [[query]]                          # a question about a time: any record in the window answers it
    text = "what did we work on on 14 March?"
    window = "2026-03-14"              # a day, or "2026-03-09..2026-03-15" (inclusive days, UTC)
    now = "2026-11-21T12:00:00Z"       # optional: this query's own clock

    [[query]]                          # a question no record answers: right when `results` is empty
    text = "the terraform state lock in the s3 backend"
    nothing = true

``expected`` may be left out when ``session`` or ``window`` says what answers the query. A query that
expects nothing counts as found at rank 1 when its results are empty (the weak matches aside).

Without ``[corpus]`` the queries run against the configured home (your own sessions).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from backscroll.errors import UsageError

QUERY_KEYS = {"id", "text", "expected", "category", "session", "role", "author", "agent", "content_type", "project",
              "since", "until", "include_echoes", "mode", "allow_also_matching", "window", "nothing", "now"}
SEARCH_KEYS = ("role", "author", "agent", "content_type", "project", "since", "until", "include_echoes", "mode")
TEXT_KEYS = ("id", "text", "expected", "category", "session", "role", "author", "agent", "content_type", "project",
             "mode")
FLAG_KEYS = ("include_echoes", "allow_also_matching", "nothing")
FILE_KEYS = {"now": "the clock", "corpus": "[corpus]", "gate": "[gate]", "query": "[[query]]"}
GATE_KEYS = {"floors", "slack", "ratchet"}
METRICS = {"hit1", "recall", "mrr", "session_hit1", "session_recall", "session_mrr", "kept"}  # a floor's names


@dataclass(frozen=True)
class EvalQuery:
    text: str
    expected: str
    category: str = "default"
    session: str | None = None
    options: dict = field(default_factory=dict)
    allow_also_matching: bool = False
    id: str | None = None
    window: tuple[str, str] | None = None  # ISO timestamps, start inclusive, end exclusive
    nothing: bool = False  # right when no result comes back
    now: str | None = None  # this query's own clock


def read_window(value: str) -> tuple[str, str]:
    """``"2026-03-14"`` or ``"2026-03-09..2026-03-15"`` (inclusive days, UTC) as ISO bounds, end exclusive."""
    from datetime import date, timedelta

    first, _sep, last = value.partition("..")
    start, end = date.fromisoformat(first.strip()), date.fromisoformat((last or first).strip()) + timedelta(days=1)
    if end <= start:
        raise ValueError("the last day before the first")
    return f"{start.isoformat()}T00:00:00Z", f"{end.isoformat()}T00:00:00Z"


@dataclass(frozen=True)
class Gate:
    """Per-category floors (hit1, mrr, recall, kept; "overall" for every query), the slack allowed below them,
    and the ratchet ids."""

    floors: dict = field(default_factory=dict)
    slack: float = 0.0
    ratchet: tuple[str, ...] = ()


def _read(path: Path) -> dict:
    try:
        return _checked(path, tomllib.loads(Path(path).read_text(encoding="utf-8-sig")))
    except FileNotFoundError:
        raise UsageError(f"no query file at {path}", hint="see `backscroll eval --help` for the format") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def _checked(path: Path, data: dict) -> dict:
    """The file's tables and keys, each of the kind it must be: a misspelt table or key, a string where a list or a
    flag goes, would otherwise pass a gate unchecked or index the wrong history (a CI reads exit 0)."""

    def wrong(what: str) -> UsageError:
        return UsageError(f"{path}: {what}"[:300], hint="see `backscroll eval --help` for the format")

    if unknown := sorted(set(data) - set(FILE_KEYS)):
        raise wrong(f"unknown table or key {', '.join(unknown)} (known: {', '.join(FILE_KEYS.values())}, now)")
    corpus = data.get("corpus")
    sources = corpus.get("sources") if isinstance(corpus, dict) else None
    if corpus is not None and not (set(corpus) == {"sources"} and isinstance(sources, list) and sources
                                   and all(isinstance(s, str) and s for s in sources)):
        raise wrong("[corpus] takes one key, sources: a list of AGENT:PATH or PATH texts")
    gate = data.get("gate", {})
    if not isinstance(gate, dict) or set(gate) - GATE_KEYS:
        raise wrong(f"[gate] takes {', '.join(sorted(GATE_KEYS))}, not {', '.join(sorted(set(gate) - GATE_KEYS))}"
                    if isinstance(gate, dict) else "[gate] is a table")
    if not isinstance(gate.get("ratchet", []), list) or not all(isinstance(r, str) for r in gate.get("ratchet", [])):
        raise wrong("[gate] ratchet is a list of query ids")
    if not isinstance(gate.get("floors", {}), dict):
        raise wrong("[gate] floors is a table: floors.CATEGORY = { hit1 = 0.8 }")
    for category, floors in gate.get("floors", {}).items():
        if not isinstance(floors, dict) or any(m not in METRICS or isinstance(v, bool) or not isinstance(v, int | float)
                                               or not 0 <= v <= 1 for m, v in floors.items()):
            raise wrong(f"floors.{category} gives shares from 0 to 1 of {', '.join(sorted(METRICS))}")
    queries = data.get("query", [])
    if not isinstance(queries, list) or not all(isinstance(q, dict) for q in queries):
        raise wrong("each query is a [[query]] table")
    from collections import Counter

    if twice := sorted((i for i, n in Counter(q["id"] for q in queries if "id" in q).items() if n > 1), key=str):
        raise wrong(f"query ids given twice: {', '.join(map(str, twice))}")
    for n, q in enumerate(queries, start=1):
        if bad := [k for k in TEXT_KEYS if k in q and not isinstance(q[k], str)]:
            raise wrong(f"query {n}: {', '.join(bad)} must be text (in quotes)")
        if bad := [k for k in FLAG_KEYS if k in q and not isinstance(q[k], bool)]:
            raise wrong(f"query {n}: {', '.join(bad)} must be true or false (no quotes)")
        if "expected" in q and not q["expected"].strip():
            raise wrong(f"query {n}: expected is blank (it would be found in any record)")
        if q.get("category", "").strip().lower() == "overall":
            raise wrong(f'query {n}: category "overall" is the row of every query; name the category otherwise')
    return data


def _shaped(path: Path, read):
    """``read()``, with a value of the wrong kind in the file (``slack = "x"``, ``query = 5``) a usage error."""
    try:
        return read()
    except (TypeError, ValueError, AttributeError) as exc:
        raise UsageError(f"{path}: a value of the wrong kind ({exc})",
                         hint="see `backscroll eval --help` for the format") from None


def load_gate(path: Path) -> tuple[Gate | None, str | None]:
    """The file's ``[gate]`` (None without one) and its ``now`` (None without one)."""
    return _shaped(path, lambda: _gate(_read(path)))


def _gate(data: dict) -> tuple[Gate | None, str | None]:
    now = data.get("now")
    g = data.get("gate")
    if not isinstance(g, dict):
        return None, now
    floors = {c: {m: float(v) for m, v in f.items()} for c, f in (g.get("floors") or {}).items()}
    return Gate(floors, float(g.get("slack", 0.0)), tuple(g.get("ratchet", ()))), now


def load_queries(path: Path) -> tuple[list[EvalQuery], list[str]]:
    """Read a query file; returns the queries and the corpus sources (absolute), if any."""
    data = _read(path)
    return _shaped(path, lambda: _queries(path, data))


def _queries(path: Path, data: dict) -> tuple[list[EvalQuery], list[str]]:
    base = Path(path).resolve().parent
    sources, places = [], []
    for spec in (data.get("corpus") or {}).get("sources", []):
        agent, sep, rel = spec.partition(":") if ":" in spec and not spec.startswith("/") else ("", "", spec)
        p = Path(rel if sep else spec)
        p = p if p.is_absolute() else base / p
        sources.append(f"{agent}:{p}" if sep else str(p))
        places.append(p)
    if places and not any(p.exists() for p in places):
        raise UsageError(f"{path}: no corpus source exists: " + ", ".join(sources),
                         hint="a relative path is read from the query file's folder")
    queries = []
    for i, item in enumerate(data.get("query", []), start=1):
        unknown = set(item) - QUERY_KEYS
        answered = item.get("expected") or item.get("session") or item.get("window") or item.get("nothing")
        if unknown or not item.get("text") or not answered:
            raise UsageError(f"{path}: query {i} needs text and expected (or session, window or nothing)" +
                             (f"; unknown keys {sorted(unknown)}" if unknown else ""),
                             hint=f"known keys: {', '.join(sorted(QUERY_KEYS))}" if unknown else None)
        if item.get("nothing") and (item.get("expected") or item.get("session") or item.get("window")):
            raise UsageError(f"{path}: query {i} says nothing answers it and names an answer too",
                             hint="nothing = true is for a question never discussed: leave out expected, session "
                                  "and window, or leave out nothing")
        try:
            window = read_window(str(item["window"])) if item.get("window") else None
        except ValueError:
            raise UsageError(f"{path}: query {i}: window {item['window']!r} is not YYYY-MM-DD[..YYYY-MM-DD], the first "
                             "day first") from None
        queries.append(EvalQuery(
            text=item["text"], expected=item.get("expected", ""), category=item.get("category", "default"),
            session=item.get("session"), options={k: item[k] for k in SEARCH_KEYS if k in item},
            allow_also_matching=bool(item.get("allow_also_matching")), id=item.get("id"), window=window,
            nothing=bool(item.get("nothing")), now=item.get("now"),
        ))
    if not queries:
        raise UsageError(f"{path} has no [[query]] entries")
    return queries, sources
