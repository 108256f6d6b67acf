"""Reading the user's query: words, quoted phrases, and its shape.

Query text is user text: nothing in it is syntax except double quotes around a phrase, and nothing
raises except a query with no searchable word at all. The shape decides how lexical and semantic
rankings are weighed: a natural-language question leans on meaning, an identifier or a path on
exact words. Stopwords are dropped from the lexical part of natural-language queries.

A query is a question, not a document: only its first ``MAX_QUERY_CHARS`` characters and first
``MAX_QUERY_TERMS`` distinct words are searched (a 100 KB paste once took minutes), and the plan
carries a note saying what was left out.

A date in the query ("on 9 April 2026", "last week") becomes ``when``, a soft time preference (see
``temporal``): its words leave the lexical terms (an ISO date, ``2026-09-14``, stays among them:
records write dates that way) and the text embedded for meaning (``meaning``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from backscroll.errors import QueryError
from backscroll.retrieval import spoken_agent, temporal, time_window

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each ever few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just let lets
let's many me more most much my myself no nor not now of off on once only or other our ours ourselves
out over own same she should shall so some such than that the their theirs them themselves then there
these they this those through to too under until up us very was we were what when where which while who
whom why will with would you your yours yourself yourselves please tell remember recall find show know
get gets getting got gotten
s t d ll m re ve didn doesn isn wasn aren weren wouldn couldn shouldn haven hasn
""".split())  # the last two lines: the light verb of "How did she get ...?", and what the tokenizer
# leaves of "Tomas's", "didn't", "we'll", "I'm", "they've"
# Words that ask what went on, not about what: next to a date they leave the word query.
DATE_FILLER = frozenset("""
happen happened happening happens work worked working works doing done anything something stuff
thing things session sessions day days busy up far decide decided decision decisions discuss discussed talk talked
monday tuesday wednesday thursday friday saturday sunday
""".split())
NOTHING_TO_SEARCH = "nothing to search for"  # how the note on a query of question words only begins
# Words that ask without naming anything: a query of these (and STOPWORDS) alone has nothing to search for.
ASKING = frozenset("""
happen happened happening happens work worked working works doing done anything something stuff thing things
decide decided decision decisions discuss discussed talk talked say said mean meant again
""".split())
_QUESTION_START = frozenset(
    "what when where which who why how did do does is are was were can could should have has".split())
MAX_QUERY_CHARS = 2000
MAX_QUERY_TERMS = 64
_PHRASE = re.compile(r'"([^"]+)"')
_IDENTIFIER_HINT = re.compile(r"[/\\._:]|[a-z][A-Z]|--?\w|\w\(|\d")


@dataclass(frozen=True)
class QueryPlan:
    text: str
    terms: tuple[str, ...]  # analysed tokens, in order, without repeats
    lexical_terms: tuple[str, ...]  # terms used for the lexical lists
    phrases: tuple[tuple[str, ...], ...]  # analysed tokens of each quoted phrase
    shape: str  # "natural" | "identifier" | "keywords"
    notes: tuple[str, ...] = ()  # what was left out of a query too long to search whole
    when: time_window.TimeWindow | None = None  # a date named in the query: a soft preference, not a filter
    meaning: str = ""  # the text to embed for semantic search (the query without its date words)
    agent: str | None = None  # an agent the question names ("what did codex do"): a hint, like --agent

    @property
    def question(self) -> bool:
        """Asked as a question ("how did we ...?"): its wording is the asker's own, not a quote."""
        words = self.text.lower().split()
        return self.text.rstrip().endswith("?") or bool(words) and words[0] in _QUESTION_START

    @property
    def asks_nothing(self) -> bool:
        """Only question words ("what did we decide", "the"): nothing names what to look for."""
        return (self.when is None and self.agent is None and not self.phrases
                and all(t in STOPWORDS or t in ASKING for t in self.terms))

    @property
    def date_only(self) -> bool:
        """A question about a time and nothing else ("what did I do yesterday?"): its answer is what
        went on then."""
        return self.when is not None and not self.lexical_terms and not self.phrases


def _dedupe(tokens: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tokens))


def classify_shape(text: str, words: list[str]) -> str:
    raw_words = text.split()
    if any(_IDENTIFIER_HINT.search(w) for w in raw_words) and len(raw_words) <= 3:
        return "identifier"
    stop = sum(1 for w in words if w in STOPWORDS)
    if text.rstrip().endswith("?") or (words and words[0] in _QUESTION_START and len(words) >= 3):
        return "natural"
    if len(words) >= 4 and stop >= 2:
        return "natural"
    if any(_IDENTIFIER_HINT.search(w) for w in raw_words):
        return "identifier"
    return "keywords"


def plan(text: str, analyze, now: datetime | None = None) -> QueryPlan:
    """Build a query plan; ``analyze`` is the lexical index's tokenizer (text -> lowercased tokens).

    ``now`` (when given) reads dates in the query, relative ones ("yesterday") against it.
    """
    text = (text or "").strip()
    notes: list[str] = []
    was_cut = ""
    if len(text) > MAX_QUERY_CHARS:
        cut = text.rfind(" ", MAX_QUERY_CHARS - 200, MAX_QUERY_CHARS + 1)
        notes.append(f"the query is {len(text):,} characters long: only its first {MAX_QUERY_CHARS:,} were searched")
        was_cut = f" in its first {MAX_QUERY_CHARS:,} characters (of {len(text):,}), all that is searched"
        text = text[: cut if cut > 0 else MAX_QUERY_CHARS].rstrip()
    tokens = analyze(text) if text else []
    if not tokens:
        from backscroll.indexes.lexical_schema import MAX_WORD

        if any(len(w) > MAX_WORD for w in re.findall(r"[^\W_]+", text)):  # (a pasted key, a blob)
            raise QueryError(f"words longer than {MAX_WORD} characters (a key, a blob) are not indexed: the query has "
                             f"none to search{was_cut}", hint="put the words to look for before the long one"
                             if was_cut else "search the words around it")
        raise QueryError(
            f"the query has no searchable words{was_cut}" if text else "the query is empty",
            hint='give some words to look for, e.g. backscroll search "job queue decision"',
        )
    terms = _dedupe(tokens)
    if len(terms) > MAX_QUERY_TERMS:
        notes.append(f"the query has {len(terms):,} different words: only the first {MAX_QUERY_TERMS} were searched")
        terms = terms[:MAX_QUERY_TERMS]
        kept = set(terms)
        tokens = [t for t in tokens if t in kept]
    phrases = []
    for m in _PHRASE.finditer(text):
        ptoks = analyze(m.group(1))
        if len(ptoks) > 1 and set(ptoks) <= set(terms):
            phrases.append(tuple(ptoks))
    when, undated = temporal.find(text, now) if now is not None else (None, text)
    agent, undated = spoken_agent.find(undated)
    # an ISO date stays a search term (logs write dates so), unless it is all the question names ("what did we do on
    # 2026-10-14?"): then it is a question about that day, as "on Oct 14" is
    about_the_day = when is not None and when.literal and all(t in STOPWORDS or t in DATE_FILLER
                                                               for t in analyze(undated))
    reworded = (when is not None and (not when.literal or about_the_day)) or agent is not None
    undated_tokens = [t for t in analyze(undated) if t in set(terms)] if reworded else tokens
    if when is not None:  # "what happened", "what was I working on": said of any day; the date is the question
        undated_tokens = [t for t in undated_tokens if t not in DATE_FILLER]
    shape = classify_shape(undated, undated_tokens)
    lexical = _dedupe(undated_tokens)
    if shape == "natural" or when is not None:
        content = tuple(t for t in lexical if t not in STOPWORDS)
        if content or when is not None:
            lexical = content  # none left: a question about the date alone ("what did I do yesterday?")
    return QueryPlan(text, terms, lexical, tuple(phrases), shape, tuple(notes), when, undated, agent)
