"""Search results for agents and pipes: one JSON document, JSON lines, tsv rows and ids, each within the budget
asked. A tsv row or an id carries no mark, so those hold only what the filters admit; the JSON forms mark
``also_matching``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from backscroll.cli.render import also_heading
from backscroll.cli.terminal import clean, clean_line
from backscroll.dates import human_age
from backscroll.errors import UsageError
from backscroll.sanitize import escaped_controls
from backscroll.types import Hit, SearchResult

FORMATS = ("human", "json", "jsonl", "tsv", "ids")


def hit_fields(hit: dict, fields: tuple[str, ...] | None) -> dict:
    return {k: hit[k] for k in fields} if fields else hit


def check_fields(spec: str | None) -> tuple[str, ...] | None:
    """``--fields a,b,c`` as a tuple of hit fields (a usage error names the known ones)."""
    from backscroll.errors import UsageError

    if not spec:
        return None
    known = tuple(Hit.__dataclass_fields__)
    known = tuple(k for k in known if k not in ("highlights", "rowid", "is_call"))
    fields = tuple(dict.fromkeys(f.strip() for f in spec.split(",") if f.strip()))
    unknown = [f for f in fields if f not in known]
    if unknown or not fields:
        raise UsageError(f"unknown field(s) for --fields: {', '.join(unknown) or '(none given)'}",
                         hint=f"known: {', '.join(known)}")
    return fields


def search_document(result: SearchResult, fields: tuple[str, ...] | None, max_bytes: int | None,
                    dumps) -> tuple[bytes, SearchResult]:
    """The ``--json`` document, its hits cut to ``fields``, and the result as sent: with ``max_bytes``, as many
    whole hits as fit, the last ones dropped first (``omitted_for_budget`` counts them too)."""
    omitted = 0
    while True:
        doc = result.to_dict()
        for name in ("results", "also_matching", "weak_matches"):
            doc[name] = [hit_fields(h, fields) for h in doc[name]]
        doc["omitted_for_budget"] += omitted
        if omitted:  # (said in the document too, as --max-tokens says it: an agent may read only stdout)
            doc["notes"] = [*doc["notes"], f"to fit --max-bytes {max_bytes}: {omitted} hit{'s' if omitted != 1 else ''}"
                                           " left out"]
        data = dumps(doc)
        if max_bytes is None or len(data) + 1 <= max_bytes or not (
                result.results or result.also_matching or result.weak_matches):
            return data, result
        result, omitted = without_last(result), omitted + 1


def without_last(result: SearchResult) -> SearchResult:
    """``result`` without its last hit: a weak match, else one also matching, else a result, which the next page
    then starts with (``budget.with_results``)."""
    from backscroll.retrieval.budget import with_results

    if result.weak_matches:
        return replace(result, weak_matches=result.weak_matches[:-1])
    if result.also_matching:
        return replace(result, also_matching=result.also_matching[:-1])
    return with_results(result, result.results[:-1])


def jsonl_lines(result: SearchResult, fields: tuple[str, ...] | None, max_bytes: int | None
                ) -> tuple[list[bytes], int, SearchResult]:
    """One compact JSON object per hit (``list`` says results or also_matching); the first lines within
    ``max_bytes``, how many were left out, and the result as sent."""
    import orjson

    from backscroll.retrieval.budget import with_results

    every = [(name, h) for name, hits in (("results", result.results), ("also_matching", result.also_matching))
             for h in hits]
    lines: list[bytes] = []
    used = 0
    for name, h in every:
        line = escaped_controls(orjson.dumps({"schema_version": result.schema_version, "list": name,
                                              **hit_fields(h.to_dict(), fields)})) + b"\n"
        if max_bytes is not None and used + len(line) > max_bytes:
            break
        used += len(line)
        lines.append(line)
    sent, n = len(lines), len(result.results)  # (the lines hold the results first, then those also matching)
    kept = with_results(result, result.results[:sent]) if sent < n else result
    return lines, len(every) - sent, replace(kept, also_matching=result.also_matching[:max(0, sent - n)])


def too_small_a_budget(asked: SearchResult, sent: SearchResult, max_bytes: int | None, fields: tuple[str, ...] | None,
                       as_lines: bool, dumps) -> UsageError | None:
    """The error for a ``--max-bytes`` that holds not even the first hit: an empty answer with exit 0 would read as
    no match at all. Its hint names a budget that holds the first hit."""
    from backscroll.retrieval.budget import with_results

    if max_bytes is None or sent.results or sent.also_matching or not (asked.results or asked.also_matching):
        return None
    first = replace(with_results(asked, asked.results[:1]), weak_matches=(),
                    also_matching=() if asked.results else asked.also_matching[:1])
    if as_lines:
        need = len(jsonl_lines(first, fields, None)[0][0])
    else:  # (the document that keeps it also says how many hits were left out: room for that note)
        roomy = len(search_document(first, fields, None, dumps)[0]) + 120
        need = len(search_document(asked, fields, roomy, dumps)[0]) + 1
    return UsageError(f"--max-bytes {max_bytes} holds not even the first hit: nothing is printed, as an empty answer "
                      "would read as no match",
                      hint=f"--max-bytes {need} holds it; or keep fewer --fields (e.g. --fields record_id,snippet), or "
                           "cut the texts with --max-chars")


def tsv_lines(result: SearchResult) -> list[str]:
    """``record id, age, agent, project, snippet`` per result, tab-separated (for fzf, cut, awk); a team archive's hit
    adds whose it is, ``member@machine``, last (the columns before stay where they are). By session, a row per
    session: ``session id, age, agent, project, title``."""
    rows = [(s.session_id, s.started_at, s.agent, s.project, s.title or "(untitled)", s.hits[0] if s.hits else None)
            for s in result.sessions] or [(h.record_id, h.timestamp, h.agent, h.project, h.snippet, h)
                                          for h in result.results]
    out = []
    for key, ts, agent, project, text, h in rows:
        cells = (key, human_age(ts), agent, project or "-", text, *((f"{h.member}@{h.machine}",) if h and h.member
                                                                      else ()))
        out.append("\t".join(clean(" ".join(str(c).split())) for c in cells))
    return out


def id_lines(result: SearchResult) -> list[str]:
    """``--ids``: a record id per result, or by session a session id per session (``show`` opens either)."""
    return [clean_line(s.session_id) for s in result.sessions] or [clean_line(h.record_id) for h in result.results]


def left_out_of_lines(result: SearchResult, given: Mapping[str, Any] | None = None) -> str:
    """What a line format (``--ids``, tsv) says of ``also_matching``, which its lines leave out: a line carries no
    mark, and a script reading the lines takes each for one the filters admit."""
    heading = also_heading(result, given).removesuffix(":").replace("Also", "also", 1)
    return f"left out of these lines: {len(result.also_matching)} {heading}; --json or -f jsonl lists them"
