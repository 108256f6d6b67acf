"""VS Code's chat session patch log (``chatSessions/<session id>.jsonl``) replayed into the session
document that older builds save whole as ``<session id>.json``; the format is described in ``copilot.py``.

``replay`` is pure: lines in, the document and the lines it could not apply out. It never raises on
what a file holds.
"""

from __future__ import annotations

import orjson

from backscroll.ingest.sources import jsontext

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3

_MISSING = object()


def _index(key: object) -> int | None:
    return key if isinstance(key, int) and not isinstance(key, bool) else None


def _child(container: object, key: object) -> object:
    """``container[key]`` for an object's property or an array's item; ``_MISSING`` when there is none."""
    if isinstance(container, dict) and isinstance(key, str):
        return container.get(key, _MISSING)
    i = _index(key)
    if isinstance(container, list) and i is not None and 0 <= i < len(container):
        return container[i]
    return _MISSING


def _parent(state: dict, path: list) -> tuple[object, object] | str:
    """The container holding the path's last key, and that key; or why the path does not lead there."""
    if not path:
        return "empty path"
    here: object = state
    for key in path[:-1]:
        here = _child(here, key)
        if here is _MISSING:
            return "path not in the session"
    return here, path[-1]


def _set(container: object, key: object, value: object) -> str | None:
    if isinstance(container, dict) and isinstance(key, str):
        container[key] = value
        return None
    i = _index(key)
    if isinstance(container, list) and i is not None and 0 <= i <= len(container):
        if i == len(container):
            container.append(value)
        else:
            container[i] = value
        return None
    return "path not in the session"


def _delete(container: object, key: object) -> str | None:
    if isinstance(container, dict) and isinstance(key, str):
        container.pop(key, None)
        return None
    i = _index(key)
    if isinstance(container, list) and i is not None and 0 <= i < len(container):
        container[i] = None  # VS Code sets the item to undefined: the array keeps its length
        return None
    return "path not in the session"


def _push(container: object, key: object, items: object, start: object) -> str | None:
    """Cut the array at ``start`` (when given), then append ``items``; a missing array is a new one."""
    if items is not None and not isinstance(items, list):
        return "push of a non-array"
    cut = None
    if start is not None:
        cut = _index(start)
        if cut is None or cut < 0:
            return "bad push index"
    current = _child(container, key)
    array = current if isinstance(current, list) else []
    if cut is not None:
        del array[cut:]
    array.extend(items or [])
    return _set(container, key, array) if array is not current else None


def apply(state: dict, entry: dict) -> str | None:
    """One patch (kind 1-3) applied to ``state`` in place; returns why it could not be, or None."""
    path = entry.get("k")
    if not isinstance(path, list):
        return "patch without a path"
    where = _parent(state, path)
    if isinstance(where, str):
        return where
    container, key = where
    kind = entry["kind"]
    if kind == SET:
        return _set(container, key, entry.get("v"))
    if kind == DELETE:
        return _delete(container, key)
    return _push(container, key, entry.get("v"), entry.get("i"))


def replay(lines: list[bytes]) -> tuple[dict | None, list[tuple[int, str]]]:
    """The session document the log's lines build, and ``(line number, reason)`` for each line skipped.

    The document is None when no line sets the initial state (an empty file, or one being rewritten).
    A last line that does not parse is a write in progress, not reported; ``lines`` is the file split
    on ``\\n``, so a complete file ends with an empty last item.
    """
    state: dict | None = None
    skipped: list[tuple[int, str]] = []
    complete = len(lines) - 1
    for i, raw in enumerate(lines):
        n = i + 1
        if not raw.strip():
            continue
        try:
            entry = jsontext.loads(raw)
        except orjson.JSONDecodeError:
            if i < complete:
                skipped.append((n, "malformed JSON"))
            continue
        kind = entry.get("kind") if isinstance(entry, dict) else None
        if _index(kind) not in (INITIAL, SET, PUSH, DELETE) or not isinstance(entry, dict):
            skipped.append((n, "not a patch"))
            continue
        if kind == INITIAL:
            if isinstance(entry.get("v"), dict):
                state = entry["v"]
            else:
                skipped.append((n, "initial state is not an object"))
            continue
        if state is None:
            skipped.append((n, "patch before the initial state"))
            continue
        why = apply(state, entry)
        if why:
            skipped.append((n, why))
    return state, skipped
