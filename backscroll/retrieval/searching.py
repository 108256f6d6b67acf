"""One search, composed: check the request, plan the query, the repeat policy, rank (words, and
meaning when there are vectors), the hint policy, then the notes. Works on an open store and index
(``Backscroll.search`` opens them); nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from backscroll.config import Config
from backscroll.errors import UsageError
from backscroll.indexes.lexical import LexicalIndex, analyze
from backscroll.request import MAX_LIMIT, MODES, SearchRequest, check_fields
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.query import plan as plan_query
from backscroll.retrieval.source import Source
from backscroll.store.db import Store
from backscroll.types import AUTHORS, CONTENT_TYPES, ROLES, Filters, Hit, SearchResult

__all__ = ["MODES", "SearchRequest", "answer", "check", "make_filters", "rank", "repeated"]


def check_agent(agent: str | None) -> None:
    from backscroll.ingest.agent_names import AGENT_NAMES

    if agent is not None and agent not in AGENT_NAMES:
        raise UsageError(f"unknown agent {agent!r}", hint=f"use one of: {', '.join(AGENT_NAMES)}")


def make_filters(*, role=None, agent=None, content_type=None, project=None, session=None,
                 since=None, until=None, author=None, file=None, now: datetime | None = None) -> Filters:
    """The filters of a search, checked; ages and dates (``since``, ``until``) read against ``now``."""
    from backscroll.when import window

    if role is not None and role not in ROLES:
        raise UsageError(f"unknown role {role!r}", hint=f"use one of: {', '.join(ROLES)}")
    if content_type is not None and content_type not in CONTENT_TYPES:
        raise UsageError(f"unknown content type {content_type!r}", hint=f"use one of: {', '.join(CONTENT_TYPES)}")
    if author is not None and author not in AUTHORS:
        raise UsageError(f"unknown author {author!r}", hint=f"use one of: {', '.join(AUTHORS)}")
    check_agent(agent)
    since_ts, until_ts = window(since, until, now=now)
    return Filters(author=author, role=role, agent=agent, content_type=content_type, project=project, session=session,
                   since=since_ts, until=until_ts, file=file)


def now_of(value: str | datetime | None) -> datetime:
    """``value`` as an aware datetime (an ISO string or a datetime; without a zone, a time in the local one);
    the current time when None, in the local time zone ($TZ honoured): a date in the query is a day on the
    user's calendar, as for ``--since``/``--until`` (``when.parse_when``) and the times shown."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.astimezone()
    if not value:
        return datetime.now(UTC).astimezone()
    try:
        found = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        return found if found.tzinfo is not None else found.astimezone()
    except ValueError:
        raise UsageError(f"now must be an ISO date or time, not {str(value)[:60]!r}",
                         hint="e.g. now=\"2026-10-01T09:00:00Z\", or a datetime") from None


def check(req: SearchRequest) -> tuple[Filters, QueryPlan]:
    """The request's filters and query plan; a usage error for an option out of range (before any I/O)."""
    check_fields(req)
    if req.member is not None and req.archive is None:
        raise UsageError("member filters a team archive's records: --member needs --archive",
                         hint="add --archive default (the archive configured here) or --archive postgresql://…",
                         reason="member-without-archive")
    if req.file is not None and req.archive is not None:
        raise UsageError("--file reads this machine's tool calls, not the team archive's",
                         hint="search the archive without --file, or this machine's history with it")
    now = now_of(req.now)
    filters = make_filters(role=req.role, agent=req.agent, content_type=req.content_type, project=req.project,
                           session=req.session, since=req.since, until=req.until, author=req.author, file=req.file,
                           now=now)
    return filters, plan_query(req.query, analyze, now=now)


def spoken_agent_hint(has_agent: Callable[[str], bool], plan: QueryPlan, filters: Filters,
                      notes: list[str]) -> Filters:
    """The agent the question names ("what did codex do"), as an ``--agent`` hint: when none was given and
    that agent's sessions are searched (``has_agent``). Other agents' matches still come, as ``also_matching``."""
    if plan.agent is None or filters.agent is not None:
        return filters
    if not has_agent(plan.agent):
        notes.append(f"no {plan.agent} sessions are indexed: these are other agents' matches for the rest of the "
                     "query")
        return filters
    notes.append(f"read {plan.agent!r} in the query as --agent {plan.agent} (a hint: other agents' matches "
                 "follow as also matching)")
    return replace(filters, agent=plan.agent)


def repeated(store: Store, req: SearchRequest, plan: QueryPlan, filters: Filters, notes: list[str],
             rerun_wording: str | None = None) -> SearchResult | None:
    """The repeat policy: an empty result naming the earlier identical call of this turn, or None."""
    from backscroll.retrieval.policy import repeat

    if req.rerun:
        return None
    argv = list(req.caller_argv) if req.caller_argv is not None else None
    earlier = repeat.find_earlier(store, repeat.key_of(req), session_id=req.caller_session, argv=argv,
                                  mcp=req.caller_mcp, now=now_of(req.now))
    if earlier is None:
        return None
    message = repeat.note(earlier, rerun_wording or repeat.RERUN)
    return SearchResult(query=plan.text, mode=req.mode, filters=filters, results=(), repeated=earlier,
                        notes=(message, *notes))


def rank(store: Store, lex: LexicalIndex, cfg: Config, req: SearchRequest, plan: QueryPlan, filters: Filters,
         fresh: bool, notes: list[str], *, unread: bool = False) -> SearchResult:
    """The local store's answer: ``answer`` on this machine's store and indexes (``LexicalDamaged`` when the
    index cannot be read: the caller rebuilds it and asks again; ``unread``: another process is indexing)."""
    from backscroll.interrupts import check, stoppable
    from backscroll.retrieval.local import LocalSource

    with stoppable(store.conn):  # (a cancelled call: between the stages, and inside a long statement)
        check()
        result = answer(LocalSource(store, lex, cfg, plan, req.mode, fresh, unread=unread), req, plan, filters)
    return replace(result, notes=tuple(dict.fromkeys([*notes, *result.notes])))


def answer(source: Source, req: SearchRequest, plan: QueryPlan, filters: Filters, point: str = "search"
           ) -> SearchResult:
    """A search of ``source`` (the local store or the team archive): ranked under the filters and judged at
    ``point`` (as a search is, or as a recall hook is), then the hint policy (``policy.hints``: role,
    author, agent and content type narrow, the rest follows as also matching; outside the scope when nothing
    in it answers), the page asked for (``offset``), and the source's notes."""
    from backscroll.retrieval import budget, judgement, pipeline
    from backscroll.retrieval.lists import depth_for
    from backscroll.retrieval.policy import hints

    opts = pipeline.SearchOptions(limit=req.limit + req.offset, page=req.limit, include_echoes=req.include_echoes,
                                  max_chars=req.max_chars, weak=req.weak, by_session=req.by_session, point=point,
                                  depth=depth_for(point))

    def run(f: Filters) -> SearchResult:
        return pipeline.run(source, plan, f, opts, req.mode)

    result = hints.also_matching(run(filters), filters, run, strict=req.strict)
    result = hints.outside_scope(result, filters, run, strict=req.strict)
    sessions = result.sessions[req.offset:]  # (by session, a page counts sessions: its results are theirs)
    results = [h for g in sessions for h in g.hits] if req.by_session else result.results[req.offset:]
    # (a question with an answer pages its results: a later page holds no weak matches to say "nothing strong";
    # by session, a page of weak matches skips whole sessions, as a page of results does)
    if result.results and req.offset:
        weak: tuple[Hit, ...] = ()
    elif req.by_session:
        skipped = set(list(dict.fromkeys(h.session_id for h in result.weak_matches))[:req.offset])
        weak = tuple(h for h in result.weak_matches if h.session_id not in skipped)
    else:
        weak = result.weak_matches[req.offset:]
    held = f"{judgement.NOTHING_STRONG}:"  # (the note counts the page's weak matches)
    notes = [judgement.nothing_strong_note(len(weak)) if n.startswith(held) else n for n in result.notes]
    result = replace(result, results=tuple(results), sessions=sessions, weak_matches=weak,
                     notes=tuple(dict.fromkeys([*source.notes, *notes])))
    result = budget.fitted(result, req.max_tokens) if req.max_tokens is not None else result
    shown = len(result.sessions) if req.by_session else len(result.results)
    if result.has_more and req.offset + shown > MAX_LIMIT:  # (no offset reaches the next page)
        result = replace(result, has_more=False, notes=(*result.notes, f"no page starts past offset {MAX_LIMIT}: "
                                                        "narrow the search (a filter, more words) to reach the rest"))
    return result
