"""What a search asks: ``SearchRequest``, the one description of every search option.

Each option a caller may set carries its meaning, its choices and its bounds (``Option``, in the
field's metadata). The command line's options (``search_command.py``), the MCP tool schema and the
repeat rule's key are generated from them, and ``check_fields`` holds every surface (CLI, library,
MCP, hooks) to the same bounds before any I/O: a new search option is one field here. Fields without
an ``Option`` say who is calling (for the repeat rule) and are not options.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from typing import Any

from backscroll.errors import MAX_COUNT, MAX_ID, MAX_PATH, MAX_WORDS, UsageError
from backscroll.ingest.agent_names import AGENT_NAMES
from backscroll.types import AUTHORS, CONTENT_TYPES, ROLES

MODES = ("hybrid", "lexical", "semantic")
MAX_LIMIT = 1000  # results a search may return (a larger limit once made Tantivy ask for 80 TB)


@dataclass(frozen=True)
class Option:
    """What a search option means to a caller: ``help`` is what an LLM reads in the MCP schema, ``brief``
    the line ``backscroll search --help`` shows."""

    help: str
    brief: str = ""
    choices: tuple[str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    asks: bool = True  # part of what is asked (the repeat rule compares it), not of how it is shown
    short: str | None = None  # the command line's one-letter name, beside ``--the-field-name``
    metavar: str | None = None  # the command line's placeholder (default: the choices, or N for a number)
    group: str | None = None  # "filter", "hint", "output" or "archive": where ``--help`` lists it
    longest: int | None = None  # a text option's most characters

    def flags(self, name: str) -> tuple[str, ...]:
        """The command line's names of the option ``name``: ``--content-type`` and ``-t``."""
        return (f"--{name.replace('_', '-')}", *((self.short,) if self.short else ()))

    def placeholder(self, annotation: str) -> str | None:
        """The command line's placeholder of a value: ``N``, ``user|assistant|tool``, or None for a flag."""
        if self.metavar or annotation == "bool":
            return self.metavar
        return "|".join(self.choices) if self.choices else "N" if kind_of(annotation) is int else "TEXT"


def _option(default: Any, help: str, **kw: Any) -> Any:
    return field(default=default, metadata={"option": Option(help, **kw)})


@dataclass(frozen=True)
class SearchRequest:
    """A search: the query, its options, and who is calling."""

    query: str = field(metadata={"option": Option(
        "Words to look for: an error message, an identifier, a path, or the subject in plain words. "
        "\"Quoted words\" must appear together. A date in the question (\"last week\", \"in October\") "
        "prefers records from then.", brief="Words to look for (\"quoted\" = a phrase).", metavar="WORDS...")})
    limit: int = _option(10, "How many results.", minimum=1, maximum=MAX_LIMIT, short="-n",
                         brief="How many results (10).")
    offset: int = _option(0, "Skip this many results first: the next page of a search is offset = limit times the "
                             "pages already read (ranks keep counting); `has_more` says whether there is one. Every "
                             "page is cut from one ranking, whatever the limit: a page past its end is read from a "
                             "deeper one, which follows it.",
                          minimum=0, maximum=MAX_LIMIT,
                          brief="The next page: skip N.", group="output")
    project: str | None = _option(None, "Only this project: case-insensitive, a unique prefix is enough.",
                                  short="-p", brief="Only this project (a unique prefix).", metavar="NAME",
                                  group="filter")
    session: str | None = _option(None, "Only this session (an id, a prefix of 6+ characters, or a hit's record id).",
                                  brief="Only this session.", metavar="ID", group="filter")
    file: str | None = _option(None, "Only sessions whose tool calls read, edited, wrote or ran a command on this "
                                     "file: a path (./src/app.py: that file; src/app.py: any project's file ending "
                                     "so), as `backscroll files` takes it. This machine's history only.",
                               brief="Only sessions that touched this file.", metavar="PATH", group="filter",
                               longest=MAX_PATH)
    since: str | None = _option(None, "Only records newer than this: a date (2026-10-01), a month (2026-10), a "
                                      "timestamp, today, "
                                      "yesterday, an age (30m, 12h, 7d, 2w, 3mo, 1y), or a date as a query "
                                      "names one (last August, last week).",
                                brief="Newer than: 2026-10, 7d, 3mo, today, last week.", metavar="WHEN",
                                group="filter")
    until: str | None = _option(None, "Only records up to this (same forms as since; a date includes its day).",
                                brief="Up to this, its day included (same forms).", metavar="WHEN", group="filter")
    role: str | None = _option(None, "Prefer records of this role (a hint: what it hides comes back under "
                                     "also_matching).", choices=ROLES,
                       brief="Records of this role.", group="hint")
    author: str | None = _option(None, "Prefer user text written by a person (human), by an agent for its "
                                       "subagent (agent), or by the harness (a hint).", choices=AUTHORS,
                         brief="Who wrote the user text.", group="hint")
    agent: str | None = _option(None, "Prefer sessions of this agent (a hint).", choices=AGENT_NAMES,
                        brief="claude, codex, aider, cursor, … (a wrong name lists all).", metavar="NAME",
                        group="hint")
    content_type: str | None = _option(
        None, "Prefer this kind of record (a hint): text (prose), tool (commands and their output, including "
              "query echoes), reasoning (the agent's thinking) or summary (compaction summaries).",
        choices=CONTENT_TYPES, short="-t", brief="Prose, commands and outputs, thinking, compaction summaries.",
        group="hint")
    member: str | None = _option(None, "Only records this member pushed to the team archive (with archive).",
                                 brief="Only this member's records.", metavar="NAME", group="archive")
    archive: str | None = _option(None, "Search the team archive instead of this machine's sessions: \"default\" "
                                        "(the one configured; over MCP the only value taken) or a PostgreSQL URL.",
                                  brief="The team archive: a URL, or default.", metavar="URL", group="archive")
    include_echoes: bool = _option(
        False, "Also return query echoes: earlier backscroll searches, their output and recalled blocks, which "
               "repeat old answers verbatim and are hidden by default. Set it only to see what was searched "
               "before.", brief="Show query echoes too.")
    mode: str = _option("hybrid", "Ranking: by words (lexical), by meaning (semantic), or both fused (hybrid).",
                        choices=MODES, brief="Both by default (hybrid).")
    max_chars: int = _option(2000, "Cut each result's text and snippet to this many characters (0: whole text).",
                             minimum=0, maximum=MAX_COUNT, asks=False,
                             brief="Cut each text at N (2000; 0: all).", group="output")
    max_tokens: int | None = _option(None, "Fit the JSON answer in about this many tokens (four characters each, "
                                           "every field counted): the best hits whole, the last one cut at a word, "
                                           "the rest left out with a note saying how many; the first result is kept "
                                           "whatever the budget, its text cut to 200 characters.", minimum=1,
                                     maximum=MAX_COUNT, asks=False,
                                     brief="Fit the answer in about N tokens.", group="output")
    by_session: bool = _option(False, "List distinct sessions (up to limit), each with its best hits, under "
                                      "`sessions`: which conversation was it?",
                             brief="One entry per session.", group="output")
    weak: bool = _option(False, "Also put weak matches in results: records that share a word or two with the "
                                "query, or are only vaguely related in meaning (held back in weak_matches "
                                "otherwise).", brief="Also show weak matches.")
    strict: bool = _option(False, "Treat role, author, agent and content_type as hard filters, and look nowhere "
                                  "outside the filters (no also_matching).",
                           brief="Hard filters: no 'also matching' at all.",
                           group="hint")
    rerun: bool = _option(False, "Run the search even if this session already ran it in this turn (an agent's "
                                 "repeat gets a note that its results are above, not the results again).", asks=False,
                          brief="Run even a repeat.")
    caller_session: str | None = None  # the agent session calling, when it says so ($BACKSCROLL_SESSION_ID)
    caller_argv: tuple[str, ...] | None = None  # this process's argv, found in the calling session's log
    caller_mcp: bool = False  # the call arrived over MCP: its in-flight call in a session's log names the caller
    now: str | datetime | None = None

    def __post_init__(self) -> None:
        from backscroll.dates import WHEN, as_when

        for name in WHEN:  # (a ``datetime`` or ``date`` given for them: its text)
            object.__setattr__(self, name, as_when(getattr(self, name)))
        whole_text(self)
        folded_choices(self)


@dataclass(frozen=True)
class ShowRequest:
    """``show``: a record in its conversation, or a page of a session (every surface: CLI, MCP, library)."""

    id: str = field(metadata={"option": Option(
        "A record id (from search results) or a session id (a prefix of 6+ characters of either is enough).",
        brief="A record id (from search results) or a session id.", metavar="ID", longest=MAX_ID)})
    context: int = _option(3, "For a record: how many records to show before and after it.", minimum=0,
                           maximum=MAX_LIMIT, short="-C", brief="Records shown before and after a record (3).")
    limit: int | None = _option(None, "For a session: how many records to show.", minimum=1, maximum=MAX_COUNT,
                                short="-n", brief="For a session: how many records.")
    offset: int = _option(0, "For a session: skip this many records (page with limit).", minimum=0,
                          maximum=MAX_COUNT, brief="For a session: skip this many records.")
    max_chars: int = _option(0, "Cut each record's text to this many characters (0: whole text).", minimum=0,
                             maximum=MAX_COUNT, brief="Cut each text at N (0: all).")
    archive: str | None = _option(None, "From the team archive (a URL, or default).",
                                  brief="From the team archive (a URL, or default).", metavar="URL")
    member: str | None = _option(None, "With --archive: the member whose record or session it is (when two "
                                 "pushed the same session).", metavar="NAME", brief="With --archive: whose it is.")


@dataclass(frozen=True)
class ListRequest:
    """``list``: sessions, newest first (every surface: CLI, MCP, library)."""

    agent: str | None = _option(None, "Only sessions of this agent.", choices=AGENT_NAMES, metavar="NAME",
                                brief="Only this agent's sessions.")
    project: str | None = _option(None, "Only this project: case-insensitive, a unique prefix is enough.",
                                  short="-p", metavar="NAME", brief="Only this project (a unique prefix).")
    since: str | None = _option(None, "Only sessions active since a date (2026-10-01), a month (2026-10), an age "
                                      "(7d, 2w) or a date "
                                      "as a query names one (last August).",
                                metavar="WHEN", brief="Active since: 2026-10-01, 7d, 2w, today.")
    until: str | None = _option(None, "Only sessions active before the end of this (same forms as since; a date "
                                      "includes its day).",
                                metavar="WHEN", brief="Active up to: 2026-10-31, 2026-10, yesterday.")
    limit: int = _option(20, "How many sessions.", minimum=1, maximum=MAX_LIMIT, short="-n",
                         brief="How many sessions (20).")
    offset: int = _option(0, "Skip this many sessions (page with limit).", minimum=0, maximum=MAX_COUNT,
                          brief="Skip this many sessions.")
    archive: str | None = _option(None, "The team archive's sessions (a URL, or default).", metavar="URL",
                                  brief="The team archive's sessions (a URL, or default).")
    member: str | None = _option(None, "With archive: only this member's sessions.", metavar="NAME",
                                 brief="With --archive: only this member's.")
    grep: str | None = _option(None, "Only sessions whose title or first prompt holds every one of these words "
                                     "(case-insensitive, in any order).", metavar="WORDS", longest=MAX_WORDS,
                               brief="Only sessions whose title or first prompt holds these words.")
    all: bool = _option(False, "Also sessions of fewer than two records, and subagents as sessions of their own "
                               "(by default a subagent is counted under its parent).",
                        brief="Also near-empty sessions, and subagents on their own lines.")

    def __post_init__(self) -> None:
        folded_choices(self)


Request = SearchRequest | ShowRequest | ListRequest


def options(request: type = SearchRequest) -> Iterator[tuple[str, str, Any, Option]]:
    """``(name, type, default, Option)`` of every option of a request, in declaration order (``type`` as
    annotated)."""
    for f in fields(request):
        opt = f.metadata.get("option")
        if opt is not None:
            yield f.name, str(f.type), None if f.default is MISSING else f.default, opt


def option(name: str, request: type = SearchRequest) -> Option:
    """The ``Option`` of the field ``name`` of a request."""
    return next(opt for field_name, _a, _d, opt in options(request) if field_name == name)


def kind_of(annotation: str) -> type:
    """The Python type of an option annotated ``annotation`` (as ``options()`` gives it): int, bool or str."""
    return {"int": int, "bool": bool}.get(annotation.split(" |")[0], str)


def whole_text(req: Any) -> None:
    """Make every text field of a frozen request valid Unicode (``sanitize.whole``): a search is built by every
    surface (the library's other reads clean their arguments in ``guard.guarded``)."""
    from backscroll.sanitize import whole

    for f in fields(req):
        value = getattr(req, f.name)
        if (clean := whole(value)) is not value:
            object.__setattr__(req, f.name, clean)


def folded_choices(req: Any) -> None:
    """A closed vocabulary's value given in another case (``--agent Claude``, an agent's ``role="User"``) as the
    vocabulary writes it."""
    for name, _annotation, _default, opt in options(type(req)):
        value = getattr(req, name)
        if opt.choices and isinstance(value, str) and value not in opt.choices and value.lower() in opt.choices:
            object.__setattr__(req, name, value.lower())


def check_fields(req: Request) -> None:
    """A usage error for an option of the wrong type, outside its bounds or its choices."""
    for name, annotation, _default, opt in options(type(req)):
        value = getattr(req, name)
        if value is None and "None" in annotation:
            continue
        kind = kind_of(annotation)
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int) or not (
                    (opt.minimum is None or value >= opt.minimum) and (opt.maximum is None or value <= opt.maximum)):
                raise UsageError(f"{name} must be a whole number from {opt.minimum} to {opt.maximum:,}, not "
                                 f"{_short(value)}", hint=f"e.g. {name} {min(20, opt.maximum or 20)}")
        elif not isinstance(value, kind):
            raise UsageError(f"{name} must be {'true or false' if kind is bool else 'a string'}, not {_short(value)}")
        elif isinstance(value, str) and "None" in annotation and not value.strip():  # (`-p "$PROJECT"` unset)
            raise UsageError(f"{name.replace('_', ' ')} is empty", hint="give it a value, or leave the option out")
        elif opt.longest is not None and isinstance(value, str) and len(value) > opt.longest:
            raise UsageError(f"the {name} given is {len(value):,} characters long, longer than any real one: at most "
                             f"{opt.longest:,} characters are looked for",
                             hint="`backscroll search WORDS` prints record ids, `backscroll list` session ids"
                             if opt.metavar == "ID" else None)
        elif opt.choices is not None and value not in opt.choices:
            raise UsageError(f"unknown {name.replace('_', ' ')} {_short(value)}",
                             hint=f"use one of: {', '.join(opt.choices)}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


# The MCP tools' own defaults: an agent's context is small, so fewer and shorter hits than the CLI's.
MCP_DEFAULTS: dict[str, Any] = {"limit": 5, "max_chars": 1000}
MCP_SHOW_DEFAULTS: dict[str, Any] = {"limit": 50, "max_chars": 2000}
