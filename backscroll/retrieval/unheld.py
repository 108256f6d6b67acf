"""What a search says about query words no record holds: a typo, or a topic never discussed. The note names
plain words only (a pasted token is never printed back) and offers the indexed word each may have meant
(``spelling``).
"""

from __future__ import annotations

from backscroll.indexes.lexical import LexicalIndex, analyze
from backscroll.store.db import Store

NAMED_MAX = 20  # longer words, or words with digits, are not named in the note


def suggestions(store: Store, lex: LexicalIndex, missing: tuple[str, ...], most: int = 3) -> dict[str, str]:
    """For up to ``most`` of the words no record holds, the indexed word a typo away (did you mean)."""
    from backscroll.retrieval.spelling import nearest, worth_suggesting

    out: dict[str, str] = {}
    for word in [w for w in missing if worth_suggesting(w)][:most]:
        ids = lex.near_misses(word)
        if not ids:
            continue
        words = {t for text in store.texts(ids, 20000).values() for t in analyze(text)}
        best = nearest(word, words, lex.doc_freq)
        if best is not None:
            out[word] = best
    return out


def unheld_note(missing: tuple[str, ...], every: bool, suggested: dict[str, str] | None = None,
                echoes: bool = False, unread: bool = False) -> str:
    """The note for query words no record in the history holds (a typo, or a topic never discussed; ``echoes``:
    hidden query echoes hold some; ``unread``: an index is reading lines that may hold them, so "never discussed"
    cannot be said), with the indexed word each may have meant. Only plain words are named: a
    token or a key pasted into the query is not in the store (secrets are redacted at ingest), and is never
    printed back."""
    named = [t for t in missing if t.isalpha() and len(t) <= NAMED_MAX]
    shown = ", ".join(f'"{t}"' for t in named[:5]) + (", ..." if len(named) > 5 else "")
    if len(named) < len(missing):
        others = len(missing) - len(named)
        shown = (shown + " and " if shown else "") + f"{others} token{'s' if others > 1 else ''} not repeated here"
    fixes = [f'"{b}"' for w, b in (suggested or {}).items() if w in named]
    meant = f"did you mean {', '.join(fixes)}?" if fixes else ""
    unknown = "misspelled, or in lines not indexed yet" if unread else "misspelled, or never discussed"
    if every:
        outside = " outside query echoes" if echoes else ""
        return f"no record holds any of the query's words ({shown}){outside}: " + (meant or unknown)
    pronoun = "they" if len(missing) > 1 else "it"
    why = f"misspelled? {meant}" if meant else unknown
    return f"no record holds {shown} ({why}), so {pronoun} did not count"
