"""Our entries in the agents' JSON settings: recall hook groups and MCP server entries, added and removed
in place (``json_text``), so that not a byte of the user's is rewritten.

What is ours: a hook group whose every handler runs ``backscroll hook AGENT EVENT`` as install writes it (any
path to a program named backscroll; a handler with another word or key is the user's), an MCP entry
``backscroll`` running ``backscroll mcp`` with nothing the user added (no ``env`` values, no other keys). A
shape we do not expect (``"hooks": []``, an event that is an object, ``"mcpServers": {"backscroll": "mine"}``)
is refused with the file named.

Taking ours out (``strip_ours``, for uninstall and before a reinstall) uses the ledger first: a recorded
text still in the file comes out only when it is one whole entry of ours (by content), cleanly where it
can (the original bytes come back), else with the comma that joined it to what the user wrote beside it;
a recorded text that names anything else is refused, the ledger having been edited. Then whatever else is
ours goes, and the containers install created (``"hooks": {}``), once empty.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path, PurePath

from backscroll.errors import UsageError
from backscroll.integrations import json_text
from backscroll.integrations.install_files import Change, Ledger, blank_before, created_by_us
from backscroll.integrations.install_write import read_or_none

HOOK_EVENTS = (("SessionStart", "session-start", "startup|resume|clear|compact", 10),
               ("UserPromptSubmit", "prompt", None, 5))


def is_backscroll(program: str) -> bool:
    return PurePath(program).name == "backscroll"


def _load(path: Path, text: str | None) -> str:
    """The file's text to edit (``{}`` for an absent or empty file), once it is known to be a JSON object."""
    if text is None or not text.strip():
        return "{}\n" if text is None else text + "{}"
    try:
        obj = json.loads(text, object_pairs_hook=json_text.once_each)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{path} is not plain JSON ({exc}); nothing was changed",
                         hint="make it plain JSON (no comments, no trailing commas, each key once) and run it again; "
                              "--agent NAME installs for the other agents alone") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    return text


def _shape(path: Path, what: str, node: json_text.Node | None, kind: str) -> json_text.Node | None:
    if node is not None and node.kind != kind:
        raise UsageError(f"{path}: {what} is a JSON {node.kind}, where {'an' if kind == 'object' else 'a'} {kind} "
                         "was expected; nothing was changed", hint=f"fix {what} by hand, then run it again")
    return node


def _value(text: str, node: json_text.Node):
    return json.loads(text[node.start:node.end])


def hook_groups(agent: str, program: str) -> dict[str, dict]:
    """Our matcher group per event, running ``program`` (the absolute path of backscroll)."""
    out = {}
    for event, arg, matcher, timeout in HOOK_EVENTS:
        group: dict = {"matcher": matcher} if matcher else {}
        command = f"{shlex.quote(program)} hook {agent} {arg}"
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        out[event] = group
    return out


def ours_handler(handler) -> bool:
    """A handler as install writes it: ``backscroll hook AGENT EVENT`` (any path to the program, an older
    install's too), nothing the user added: no other word, option or key."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str) \
            or not set(handler) <= {"type", "command", "timeout"}:
        return False
    try:
        words = shlex.split(handler["command"])
    except ValueError:
        return False
    return len(words) == 4 and is_backscroll(words[0]) and words[1] == "hook" and words[2] in ("claude", "codex") \
        and words[3] in {arg for _e, arg, _m, _t in HOOK_EVENTS}


def ours_group(group) -> bool:
    return isinstance(group, dict) and isinstance(group.get("hooks"), list) and bool(group["hooks"]) \
        and all(ours_handler(h) for h in group["hooks"])


def add_hooks(path: Path, text: str, agent: str, program: str) -> tuple[str, list[str]]:
    """``text`` with our hook groups (an existing one of ours is replaced), and the texts inserted."""
    wanted = hook_groups(agent, program)
    hooks = _shape(path, '"hooks"', json_text.parse(text).get("hooks"), "object")
    if hooks is not None:
        present = _value(text, hooks)
        for event in present:
            _shape(path, f'"hooks.{event}"', hooks.get(event), "array")
        ours = [g for groups in present.values() for g in groups if ours_group(g)]
        if sorted(map(json.dumps, ours)) == sorted(json.dumps(g) for g in wanted.values()) and all(
                g in present.get(e, []) for e, g in wanted.items()):
            return text, []  # installed as it would be now
    text = remove_hooks(path, text)
    inserted: list[str] = []
    for event, group in wanted.items():
        root = json_text.parse(text)
        hooks = _shape(path, '"hooks"', root.get("hooks"), "object")
        if hooks is None:
            text, ins = json_text.insert_member(text, root, "hooks", {e: [g] for e, g in wanted.items()})
            return text, [*inserted, ins]
        groups = _shape(path, f'"hooks.{event}"', hooks.get(event), "array")
        if groups is None:
            text, ins = json_text.insert_member(text, hooks, event, [group])
        else:
            text, ins = json_text.append_item(text, groups, group)
        inserted.append(ins)
    return text, inserted


def remove_hooks(path: Path, text: str) -> str:
    """``text`` without our hook groups and handlers (containers are left as they are)."""
    while True:
        root = json_text.parse(text)
        hooks = root.get("hooks")
        cut = None
        for _event, _s, groups in (hooks.members if hooks is not None and hooks.kind == "object" else []):
            for i, g in enumerate(groups.items if groups.kind == "array" else []):
                value = _value(text, g)
                if ours_group(value):
                    cut = json_text.cut_item(text, groups, i)
                elif isinstance(value, dict) and any(ours_handler(h) for h in value.get("hooks") or []):
                    handlers = g.get("hooks")
                    assert handlers is not None
                    j = next(j for j, h in enumerate(handlers.items) if ours_handler(_value(text, h)))
                    cut = json_text.cut_item(text, handlers, j)
                if cut is not None:
                    break
            if cut is not None:
                break
        if cut is None:
            return text
        text = cut


def mcp_entry(agent: str, program: str) -> dict:
    if agent == "claude":
        return {"type": "stdio", "command": program, "args": ["mcp"], "env": {}}
    return {"command": program, "args": ["mcp"], "timeout": 30000, "trust": False}


def ours_mcp(entry) -> bool:
    """An MCP entry install wrote: our command and arguments, nothing the user added (no ``env`` values)."""
    return (isinstance(entry, dict) and isinstance(entry.get("command"), str) and is_backscroll(entry["command"])
            and entry.get("args") == ["mcp"] and not entry.get("env")
            and set(entry) <= {"type", "command", "args", "env", "timeout", "trust"})


def add_mcp(path: Path, text: str, agent: str, program: str) -> tuple[str, list[str]]:
    root = json_text.parse(text)
    servers = _shape(path, '"mcpServers"', root.get("mcpServers"), "object")
    if servers is None:
        text, ins = json_text.insert_member(text, root, "mcpServers", {"backscroll": mcp_entry(agent, program)})
        return text, [ins]
    existing = _shape(path, '"mcpServers.backscroll"', servers.get("backscroll"), "object")
    if existing is not None:
        if not ours_mcp(_value(text, existing)) or _value(text, existing) == mcp_entry(agent, program):
            return text, []  # the user's own entry, or ours as it is
        text = json_text.cut_member(text, servers, "backscroll")
        servers = json_text.parse(text).get("mcpServers")
        assert servers is not None
    text, ins = json_text.insert_member(text, servers, "backscroll", mcp_entry(agent, program))
    return text, [ins]


def remove_mcp(path: Path, text: str) -> str:
    servers = json_text.parse(text).get("mcpServers")
    if servers is None or servers.kind != "object":
        return text
    entry = servers.get("backscroll")
    if entry is None or not ours_mcp(_value(text, entry)):
        return text
    return json_text.cut_member(text, servers, "backscroll")


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
        return json.loads(text)
    except ValueError:
        return ValueError  # never equal to a parsed value


def _take_out(path: Path, text: str, inserted: str, kind: str, book: Ledger) -> str:
    if text.count(inserted) != 1:
        return text  # reformatted since: ours goes by its content
    at = text.index(inserted)
    found = json_text.entry_at(text, at, at + len(inserted))
    if found is None or not ours_doc(kind, _nest(found[0], _value(text, found[3]))):
        raise UsageError(f"{book.path} says backscroll added {inserted.strip()[:60]!r} to {path}, but that is not "
                         "one whole entry of backscroll's there; nothing was changed",
                         hint=f"the record was edited: take the entry for {path} out of {book.path}, then run "
                              "it again")
    clean = text[:at] + text[at + len(inserted):]
    shaped = json_text.cut_at(text, found[1], found[2])
    # The text as inserted comes out byte for byte unless the user wrote next to it (a comma joins theirs).
    return clean if _loads(clean) == json.loads(shaped) else shaped


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


def json_change(path: Path, kind: str, what: str, uninstall: bool, book: Ledger | None, add) -> Change:
    before = read_or_none(path)
    text = _load(path, before)
    if uninstall:
        after: str | None = strip_ours(path, text, book, kind)
        if before is None:
            after = None
        elif created_by_us(book, path, kind) and after is not None and json.loads(after) == {}:
            after = None  # install created the file: it goes
        elif (blank := blank_before(book, path, kind)) is not None and after is not None and json.loads(after) == {}:
            after = blank  # install found it empty: empty it is again
        elif after == text:
            after = before
        return Change(path, before, after, what, kind)
    after, inserted = add(path, text)
    if inserted:  # ours from before (another venv's) goes as uninstall takes it out, so the record stays exact
        after, inserted = add(path, strip_ours(path, text, book, kind))
    if not inserted and before is not None:
        after = before
    return Change(path, before, after, what, kind, tuple(inserted), created_containers(after, inserted, kind))


def json_has(path: Path, test) -> bool:
    """Whether ``path`` holds a JSON object that passes ``test`` (False for anything unreadable)."""
    try:
        value = json.loads(read_or_none(path) or "{}")
        return isinstance(value, dict) and bool(test(value))
    except (ValueError, UsageError, AttributeError, TypeError):
        return False
