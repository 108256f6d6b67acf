"""Decoding and encoding JSON that orjson refuses but that holds valid text.

``loads`` is ``orjson.loads`` with repairs tried only after orjson fails, so valid lines are not
dropped: lone UTF-16 surrogate escapes (``"\\ud83d"``, what a Node agent writes when it cuts a string
mid-emoji) become U+FFFD, values nested deeper than orjson's limit (1024) are replaced by a
placeholder string, and ``NaN``, ``Infinity`` and numbers past a float's range are null. ``dumps`` is
``orjson.dumps`` that caps nesting (orjson stops at 255 levels) the same way. Everything here is pure and
never recurses deeper than ``MAX_DEPTH``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

MAX_DEPTH = 64  # nesting kept when a value is too deep to decode or encode as is
DEEP = "[nested too deep]"
_DEEP_JSON = orjson.dumps(DEEP)

# A \uXXXX surrogate escape not itself escaped (an even number of backslashes before it): a pair, or a lone half.
_SURROGATE_ESCAPE = re.compile(
    rb"(?<!\\)((?:\\\\)*)(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2})")
# A string token, or one bracket.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def _fix_surrogate(m: re.Match) -> bytes:
    esc = m.group(2)
    return m.group(1) + (esc if len(esc) == 12 else b"\\ufffd")


def replace_lone_surrogates(data: bytes) -> bytes:
    """JSON text with every lone surrogate escape replaced by ``\\ufffd`` (pairs are kept)."""
    if b"\\u" not in data:
        return data
    return _SURROGATE_ESCAPE.sub(_fix_surrogate, data)


def cap_depth(data: bytes, limit: int = MAX_DEPTH) -> bytes:
    """JSON text with every array or object nested deeper than ``limit`` replaced by a placeholder."""
    out: list[bytes] = []
    depth = 0
    pos = 0
    for m in _TOKEN.finditer(data):
        tok = m.group()
        if tok[:1] == b'"':
            continue
        if tok in (b"[", b"{"):
            depth += 1
            if depth == limit + 1:
                out.append(data[pos:m.start()])
                out.append(_DEEP_JSON)
        else:
            if depth == limit + 1:
                pos = m.end()
            depth -= 1
    if not out:
        return data
    out.append(data[pos:])
    return b"".join(out)


def loads(raw: bytes | str) -> Any:
    """``orjson.loads``, repairing lone surrogate escapes, too-deep nesting, a byte-order mark and bytes that are not
    UTF-8 (each as U+FFFD) when orjson refuses them.

    Raises the original ``orjson.JSONDecodeError`` when the text is not JSON even after the repairs.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        first = exc
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else bytes(raw)
    text = str(first).lower()
    if "surrogate" in text or "recursion" in text or "depth" in text:
        fixed = replace_lone_surrogates(data)
        for attempt in range(2):
            try:
                return orjson.loads(fixed)
            except orjson.JSONDecodeError as exc:
                msg = str(exc).lower()
                if attempt or not ("recursion" in msg or "depth" in msg):
                    break
                fixed = cap_depth(fixed)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with its byte-order mark (PowerShell's `>` writes it)
        try:
            return loads(data.decode("utf-16").encode("utf-8", "surrogatepass"))
        except (UnicodeDecodeError, orjson.JSONDecodeError):
            raise first from None
    if "utf-8" in text:  # a byte-order mark (a Windows tool's), or bytes that are not UTF-8: the rest is kept
        fixed = (data[3:] if data.startswith(b"\xef\xbb\xbf") else data).decode("utf-8", "replace").encode()
        if fixed != data:
            return loads(fixed)
    if _NON_FINITE.search(data):  # NaN, Infinity (Python's json.dumps writes them) or 1e999: null, the rest kept
        import json

        try:
            return json.loads(replace_lone_surrogates(data), parse_constant=lambda _name: None, parse_float=_finite)
        except (ValueError, RecursionError):
            pass
    raise first


_NON_FINITE = re.compile(rb"NaN|Infinity|[0-9][eE][+]?[0-9]{3}")


def _finite(number: str) -> float | None:
    value = float(number)
    return value if value not in (float("inf"), float("-inf")) else None


def _capped(value: object, depth: int) -> object:
    if isinstance(value, dict):
        return DEEP if depth <= 0 else {k: _capped(v, depth - 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return DEEP if depth <= 0 else [_capped(v, depth - 1) for v in value]
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return value


def dumps(value: object) -> str:
    """Compact JSON text of ``value``; nesting past ``MAX_DEPTH`` levels becomes a placeholder when
    orjson cannot encode it as is (too deep, or strings holding lone surrogates)."""
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        capped = _capped(value, MAX_DEPTH)
        try:
            return orjson.dumps(capped, default=str).decode()
        except TypeError:  # an integer past 64 bits, a key that is not text: what the stdlib reader may give
            import json

            return json.dumps(capped, ensure_ascii=False, separators=(",", ":"), default=str)
