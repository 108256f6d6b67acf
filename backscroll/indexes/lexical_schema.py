"""The lexical index's schema: its analyzers, fields, documents, and what a damaged index raises.

Documents carry the record's store id, its text three ways (plain words, English stems, and the
capitalised parts of identifiers) and raw fields for every filter. ``LEXICAL_SCHEMA`` is the
version written beside each generation: a change here bumps it, and older indexes are rebuilt.

A word is a run of letters and digits, read in Unicode's composed form (NFC: "é" typed and "é" decomposed are one
word). Chinese and Japanese put no spaces between words, so a Han character is a word of its own and a run of
hiragana or of katakana is one (``unspaced``); a question's characters then find the text that holds them (and,
side by side, rank it first).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

import tantivy
from tantivy import Filter, SchemaBuilder, TextAnalyzer, TextAnalyzerBuilder, Tokenizer

from backscroll.dates import held
from backscroll.indexes.unspaced import as_indexed

LEXICAL_SCHEMA = 5
MAX_WORD = 80  # longer "words" (base64, minified code) are not indexed; a sha256 (64) still is


def _analyzer(stem: bool) -> TextAnalyzer:
    b = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(MAX_WORD)).filter(Filter.lowercase())
    if stem:
        b = b.filter(Filter.stemmer("english"))
    return b.build()


_WORDS = _analyzer(False)
_STEMS = _analyzer(True)


def _parts_analyzer() -> TextAnalyzer:
    """Capitalised pieces of words: ``CheckoutLineSerializer`` -> checkout, line, serializer."""
    return TextAnalyzerBuilder(Tokenizer.regex(r"[A-Z][a-z]+")).filter(Filter.lowercase()).build()


def analyze(text: str) -> list[str]:
    """The index's own word tokenizer (lowercased, long tokens dropped), of the text as the index is given it."""
    return _WORDS.analyze(as_indexed(text))


def stem(token: str) -> str:
    out = _STEMS.analyze(token)
    return out[0] if out else token


def _schema() -> tantivy.Schema:
    sb = SchemaBuilder()
    sb.add_unsigned_field("id", stored=True, indexed=True, fast=True)
    sb.add_text_field("text", stored=False, tokenizer_name="bs_words")
    sb.add_text_field("stem", stored=False, tokenizer_name="bs_stems", index_option="freq")
    sb.add_text_field("parts", stored=False, tokenizer_name="bs_parts", index_option="freq")
    for name in ("agent", "project", "role", "content_type", "session", "echo", "tool", "author"):
        sb.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_date_field("ts", stored=False, indexed=True, fast=True)
    return sb.build()


SCHEMA = _schema()


@dataclass(frozen=True)
class LexicalQuery:
    """The words to match (any of them, ranked) and the quoted phrases every hit must hold."""

    terms: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...] = ()


def register_tokenizers(idx: tantivy.Index) -> tantivy.Index:
    """Give an opened or new index the analyzers its text fields name."""
    idx.register_tokenizer("bs_words", _analyzer(False))
    idx.register_tokenizer("bs_stems", _analyzer(True))
    idx.register_tokenizer("bs_parts", _parts_analyzer())
    return idx


def to_datetime(value: str | None) -> datetime | None:
    """An ISO timestamp as a datetime (``Z`` accepted); None when absent, unparsable or out of the index's reach
    (``dates.held``: a store may hold such a time from before it was read as none)."""
    if not value:
        return None
    try:
        return held(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None


def document(row: Any) -> tantivy.Document:
    """The document of a store row (the columns of ``Store.records_after``)."""
    rid, agent, project, role, ctype, session, echo, ts, text, tool, author = row
    doc = tantivy.Document()
    doc.add_unsigned("id", rid)
    text = as_indexed(text)
    doc.add_text("text", text)
    doc.add_text("stem", text)
    doc.add_text("parts", text)
    doc.add_text("agent", agent)
    doc.add_text("project", project or "")
    doc.add_text("role", role)
    doc.add_text("content_type", ctype)
    doc.add_text("session", session)
    doc.add_text("echo", "1" if echo else "0")
    if tool:
        doc.add_text("tool", tool)
    if author:
        doc.add_text("author", author)
    when = to_datetime(ts)
    if when is not None:
        doc.add_date("ts", when)
    return doc


class LexicalDamaged(Exception):
    """The index's files could not be read (a damaged segment): rebuild it from the store."""


def unreadable(exc: BaseException) -> bool:
    """Errors that mean damaged index files: tantivy's ValueError/OSError, or a Rust panic.

    pyo3's ``PanicException`` derives from ``BaseException`` and is not importable by name.
    """
    return isinstance(exc, (ValueError, OSError)) or type(exc).__name__ == "PanicException"


_F = TypeVar("_F", bound=Callable[..., Any])


_QUIET = threading.Lock()
_quiet: dict[str, Any] = {"depth": 0, "saved": None}


@contextmanager
def rust_quiet() -> Iterator[None]:
    """Hold fd 2 on /dev/null while Tantivy reads: a Rust panic on a damaged segment prints its own
    message and backtrace there before Python sees the exception, which we report in our words."""
    with _QUIET:
        if _quiet["depth"] == 0:
            try:
                saved = os.dup(2)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 2)
                os.close(null)
                _quiet["saved"] = saved
            except OSError:
                _quiet["saved"] = None
        _quiet["depth"] += 1
    try:
        yield
    finally:
        with _QUIET:
            _quiet["depth"] -= 1
            if _quiet["depth"] == 0 and _quiet["saved"] is not None:
                os.dup2(_quiet["saved"], 2)
                os.close(_quiet["saved"])
                _quiet["saved"] = None


def reading(method: _F) -> _F:
    """Turn a damaged segment's error (or Rust panic) during a search into ``LexicalDamaged``."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            with rust_quiet():
                return method(self, *args, **kwargs)
        except BaseException as exc:
            if unreadable(exc):
                raise LexicalDamaged(f"{type(exc).__name__}: {exc}") from None
            raise

    return cast(_F, wrapper)
