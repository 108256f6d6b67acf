"""A change to an agent's JSON settings, planned in place (``json_text``) so that not a byte of the user's is
rewritten: our entries (``install_entries`` says what is ours) put in, or taken out.

Taking ours out (``strip_ours``, for uninstall and before a reinstall) uses the ledger first: a recorded
text still in the file comes out only when it is one whole entry of ours (by content), cleanly where it
can (the original bytes come back), else with the comma that joined it to what the user wrote beside it;
a recorded text that names anything else is refused, the ledger having been edited. Then whatever else is
ours goes, and the containers install created (``"hooks": {}``), once empty.
"""

from __future__ import annotations

import json
from pathlib import Path

from backscroll.errors import UsageError
from backscroll.integrations import json_text
from backscroll.integrations.install_entries import ours_group, ours_mcp, remove_hooks, remove_mcp, value
from backscroll.integrations.install_files import Change, Ledger, blank_before, created_by_us
from backscroll.integrations.install_write import read_or_none


def _load(path: Path, text: str | None, commented: bool) -> str:
    """The file's text to edit (``{}`` for an absent or empty file), once it is known to be a JSON object (one that
    may hold comments when ``commented``: the agent reads them)."""
    if text is None or not text.strip():
        return "{}\n" if text is None else text + "{}"
    try:
        obj = json_text.loads(text) if commented else json.loads(text, object_pairs_hook=json_text.once_each)
    except (ValueError, RecursionError) as exc:
        plain = "JSON" if commented else "plain JSON"
        raise UsageError(f"{path} is not {plain} ({exc}); nothing was changed",
                         hint=f"make it {plain} ({'' if commented else 'no comments, '}no trailing commas, each key "
                              "once) and run it again; --agent NAME installs for the other agents alone") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    return text


def ours_doc(kind: str, doc) -> bool:
    """Whether ``doc`` (an entry wrapped in the keys that lead to it from the top) holds only what install
    writes: ``{"mcpServers": {"backscroll": ours}}``, or ``{"hooks": {event: [our groups]}}``."""
    if not isinstance(doc, dict):
        return False
    if kind == "mcp":
        servers = doc.get("mcpServers")
        return set(doc) == {"mcpServers"} and isinstance(servers, dict) and set(servers) == {"backscroll"} \
            and ours_mcp(servers["backscroll"])
    hooks = doc.get("hooks")
    return set(doc) == {"hooks"} and isinstance(hooks, dict) and bool(hooks) and all(
        isinstance(groups, list) and groups and all(ours_group(g) for g in groups) for groups in hooks.values())


def _nest(keys: list, value):
    for key in reversed(keys):
        value = [value] if isinstance(key, int) else {key: value}
    return value


def _loads(text: str):
    try:
        return json_text.loads(text)
    except ValueError:
        return ValueError  # never equal to a parsed value


def _take_out(path: Path, text: str, inserted: str, kind: str, book: Ledger) -> str:
    if text.count(inserted) != 1:
        return text  # reformatted since: ours goes by its content
    at = text.index(inserted)
    found = json_text.entry_at(text, at, at + len(inserted))
    if found is None or not ours_doc(kind, _nest(found[0], value(text, found[3]))):
        raise UsageError(f"{book.path} says backscroll added {inserted.strip()[:60]!r} to {path}, but that is not "
                         "one whole entry of backscroll's there; nothing was changed",
                         hint=f"the record was edited: take the entry for {path} out of {book.path}, then run "
                              "it again")
    clean = text[:at] + text[at + len(inserted):]
    shaped = json_text.cut_at(text, found[1], found[2])
    # The text as inserted comes out byte for byte unless the user wrote next to it (a comma joins theirs).
    shaped_value = _loads(shaped)
    same = shaped_value is not ValueError and _loads(clean) == shaped_value and _comments(clean) == _comments(shaped)
    return clean if same else shaped


def _ours_container(kind: str, keys: tuple[str, ...]) -> bool:
    """A container that holds our entries: ``mcpServers``, ``hooks`` or an event's list in it."""
    return keys == ("mcpServers",) if kind == "mcp" else keys[0] == "hooks" and len(keys) <= 2


def _prune(text: str, keys: tuple[str, ...], kind: str) -> str:
    """``text`` without the container at ``keys`` if it is empty (and one of ours: the ledger is only text)."""
    if not _ours_container(kind, keys):
        return text
    parent: json_text.Node | None = json_text.parse(text)
    for key in keys[:-1]:
        parent = parent.get(key) if parent is not None and parent.kind == "object" else None
    node = parent.get(keys[-1]) if parent is not None and parent.kind == "object" else None
    if parent is None or node is None or node.kind not in ("object", "array") or node.members or node.items:
        return text
    return json_text.cut_member(text, parent, keys[-1])


def strip_ours(path: Path, text: str, book: Ledger | None, kind: str) -> str:
    """``text`` without what install added (see the module's docstring)."""
    if book is not None:
        for inserted in reversed(book.inserted(path, kind)):
            text = _take_out(path, text, inserted, kind, book)
    text = (remove_hooks if kind == "hooks" else remove_mcp)(path, text)
    for keys in sorted(book.containers(path, kind) if book else [], key=len, reverse=True):  # inner first
        text = _prune(text, keys, kind)
    return text


def created_containers(text: str, inserted: list[str], kind: str) -> tuple[tuple[str, ...], ...]:
    """The containers (key paths) that the inserted texts made in ``text``: what uninstall may take out once
    they are empty, even when the agent has reformatted the file."""
    out: list[tuple[str, ...]] = []
    for ins in inserted:
        at = text.find(ins)
        found = json_text.entry_at(text, at, at + len(ins)) if at >= 0 else None
        if found is None or not all(isinstance(k, str) for k in found[0]):
            continue  # an element appended to a list that was there
        keys, node = tuple(map(str, found[0])), found[3]
        out += [keys] + [(*keys, k) for k, _s, v in node.members if v.kind in ("object", "array")]
    return tuple(keys for keys in out if _ours_container(kind, keys))


def json_change(path: Path, kind: str, what: str, uninstall: bool, book: Ledger | None, add, *,
                commented: bool = False) -> Change:
    """The change to ``path`` that adds (``add(path, text)``) or takes out our ``kind`` of entry; ``commented``:
    the agent reads comments in it (they are kept, as every other byte)."""
    before = read_or_none(path)
    if uninstall and (before is None or "backscroll" not in before):
        return Change(path, before, before, what, kind)  # (nothing of ours can be there, whatever the file holds)
    text = _load(path, before, commented)
    if uninstall:
        after: str | None = strip_ours(path, text, book, kind)
        if before is None:
            after = None
        elif created_by_us(book, path, kind) and after is not None and _bare(after):
            after = None  # install created the file: it goes
        elif (blank := blank_before(book, path, kind)) is not None and after is not None and _bare(after):
            after = blank  # install found it empty: empty it is again
        elif after == text:
            after = before
        unrecorded = () if after == before or (book is not None and book.entry(path, kind)) else (
            f"{path}: no record of installing it in {book.path if book else 'the data dir'} (installed with another "
            "data dir?): backscroll's entries were taken out by their shape; what held them stays",)
        if commented:
            _kept_theirs(path, before, after, kind, "take its entry out of")
        return Change(path, before, after, what, kind, notes=unrecorded)
    after, inserted = add(path, text)
    if inserted:  # ours from before (another venv's) goes as uninstall takes it out, so the record stays exact
        after, inserted = add(path, strip_ours(path, text, book, kind))
    if not inserted and before is not None:
        after = before
    if commented:
        _kept_theirs(path, before, after, kind, "add its entry to")
    return Change(path, before, after, what, kind, tuple(inserted), created_containers(after, inserted, kind))


def _comments(text: str) -> list[str]:
    """The comments in ``text``, in order (each without the white space a line's end may hold)."""
    return [text[a:b].rstrip() for a, b in json_text.comments(text)]


def _bare(text: str) -> bool:
    """Whether ``text`` holds an empty object and no comment of the user's."""
    return json_text.loads(text) == {} and not json_text.comments(text)


def _theirs(value, kind: str):
    """A settings value without our MCP entry (an emptied ``mcpServers`` counted as none)."""
    servers = value.get("mcpServers") if isinstance(value, dict) and kind == "mcp" else None
    if not isinstance(servers, dict):
        return value
    rest = {k: v for k, v in value.items() if k != "mcpServers"}
    servers = {k: v for k, v in servers.items() if k != "backscroll"}
    return {**rest, "mcpServers": servers} if servers else rest


def _kept_theirs(path: Path, before: str | None, after: str | None, kind: str, doing: str) -> None:
    """Refuse a change of a file with comments that would change the user's part of it: what it says (its value
    but for our entry) or any comment (the text editor's guarantee, checked once more before anything is written)."""
    if before is None or after is None or not before.strip() or not after.strip():
        return  # (a file created, deleted or emptied as it was found, or one that was empty: nothing of the user's)

    def said(text: str) -> tuple:
        return _theirs(json_text.loads(text), kind), _comments(text)

    try:
        same = said(before) == said(after)
    except ValueError:
        same = False
    if not same:
        raise UsageError(f"backscroll could not {doing} {path} without changing what you wrote in it; nothing was "
                         "changed", hint='edit it by hand: the entry is "backscroll" under "mcpServers"')


def json_has(path: Path, test, commented: bool = False) -> bool:
    """Whether ``path`` holds a JSON object (with comments, when ``commented``) that passes ``test`` (False for
    anything unreadable)."""
    try:
        value = (json_text.loads if commented else json.loads)(read_or_none(path) or "{}")
        return isinstance(value, dict) and bool(test(value))
    except (ValueError, UsageError, AttributeError, TypeError):
        return False
