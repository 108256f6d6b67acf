"""What of the agents' JSON settings is ours, and adding or removing it in place (``json_text``): recall hook groups
and MCP server entries.

Ours: a hook handler as install writes it (``backscroll hook AGENT EVENT`` by an absolute path, install's type and
timeout, nothing else), a group of only such handlers, and an MCP entry ``backscroll`` as install writes it for
Claude Code or Gemini CLI. A handler or an entry the user wrote or changed, ``claude mcp add``'s bare ``backscroll``
among them, is theirs: kept, never doubled. A shape we do not expect (``"hooks": []``, an event that is an object,
``"mcpServers": {"backscroll": "mine"}``) is refused with the file named.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path, PurePath

from backscroll.errors import UsageError
from backscroll.integrations import json_text

HOOK_EVENTS = (("SessionStart", "session-start", "startup|resume|clear|compact", 10),
               ("UserPromptSubmit", "prompt", None, 5))
TIMEOUTS = {arg: timeout for _e, arg, _m, timeout in HOOK_EVENTS}


def is_backscroll(program: str) -> bool:
    return PurePath(program).name == "backscroll"


def installed_program(program: str) -> bool:
    """A program as install names it: by its absolute path (``claude mcp add … -- backscroll mcp``, the user's own
    entry, names it bare)."""
    return is_backscroll(program) and PurePath(program).is_absolute()


def shape(path: Path, what: str, node: json_text.Node | None, kind: str) -> json_text.Node | None:
    if node is not None and node.kind != kind:
        raise UsageError(f"{path}: {what} is a JSON {node.kind}, where {'an' if kind[0] in 'aeiou' else 'a'} {kind} "
                         "was expected; nothing was changed", hint=f"fix {what} by hand, then run it again")
    return node


def value(text: str, node: json_text.Node):
    return json_text.loads(text[node.start:node.end])


def hook_groups(agent: str, program: str) -> dict[str, dict]:
    """Our matcher group per event, running ``program`` (the absolute path of backscroll)."""
    out = {}
    for event, arg, matcher, timeout in HOOK_EVENTS:
        group: dict = {"matcher": matcher} if matcher else {}
        command = f"{shlex.quote(program)} hook {agent} {arg}"
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        out[event] = group
    return out


def hook_words(handler) -> tuple[str, str, str] | None:
    """``(program, agent, event)`` of a handler that runs ``backscroll hook AGENT EVENT`` (any path, any other key)."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return None
    try:
        words = shlex.split(handler["command"])
    except ValueError:
        return None
    if len(words) == 4 and is_backscroll(words[0]) and words[1] == "hook" and words[2] in ("claude", "codex") \
            and words[3] in TIMEOUTS:
        return words[0], words[2], words[3]
    return None


def ours_handler(handler) -> bool:
    """A handler as install writes it: ``backscroll hook AGENT EVENT`` by an absolute path (another venv's too),
    with install's type and timeout and nothing the user added: no other word, option, key or value."""
    found = hook_words(handler)
    return found is not None and set(handler) == {"type", "command", "timeout"} and handler["type"] == "command" \
        and handler["timeout"] == TIMEOUTS[found[2]] and installed_program(found[0])


def ours_group(group) -> bool:
    return isinstance(group, dict) and isinstance(group.get("hooks"), list) and bool(group["hooks"]) \
        and all(ours_handler(h) for h in group["hooks"])


def add_hooks(path: Path, text: str, agent: str, program: str) -> tuple[str, list[str]]:
    """``text`` with our hook groups (an existing one of ours is replaced), and the texts inserted. An event with a
    handler of the user's that runs our hook (one they wrote, or ours they changed) gets none: it would run twice."""
    wanted = hook_groups(agent, program)
    hooks = shape(path, '"hooks"', json_text.parse(text).get("hooks"), "object")
    if hooks is not None:
        present = value(text, hooks)
        for event in present:
            shape(path, f'"hooks.{event}"', hooks.get(event), "array")
        wanted = {e: g for e, g in wanted.items() if not own_hook(present.get(e), agent)}
        if not wanted:
            return text, []
        ours = [g for groups in present.values() for g in groups if ours_group(g)]
        if sorted(map(json.dumps, ours)) == sorted(json.dumps(g) for g in wanted.values()) and all(
                g in present.get(e, []) for e, g in wanted.items()):
            return text, []  # installed as it would be now
    text = remove_hooks(path, text)
    inserted: list[str] = []
    for event, group in wanted.items():
        root = json_text.parse(text)
        hooks = shape(path, '"hooks"', root.get("hooks"), "object")
        if hooks is None:
            text, ins = json_text.insert_member(text, root, "hooks", {e: [g] for e, g in wanted.items()})
            return text, [*inserted, ins]
        groups = shape(path, f'"hooks.{event}"', hooks.get(event), "array")
        if groups is None:
            text, ins = json_text.insert_member(text, hooks, event, [group])
        else:
            text, ins = json_text.append_item(text, groups, group)
        inserted.append(ins)
    return text, inserted


def own_hook(groups, agent: str) -> bool:
    """Whether an event's groups hold a handler of the user's that runs ``backscroll hook AGENT …``."""
    handlers = [h for g in (groups if isinstance(groups, list) else []) if isinstance(g, dict)
                for h in (g["hooks"] if isinstance(g.get("hooks"), list) else [])]
    return any(not ours_handler(h) and (hook_words(h) or ("", ""))[1] == agent for h in handlers)


def remove_hooks(path: Path, text: str) -> str:
    """``text`` without our hook groups and handlers (containers are left as they are)."""
    while True:
        root = json_text.parse(text)
        hooks = root.get("hooks")
        cut = None
        for _event, _s, groups in (hooks.members if hooks is not None and hooks.kind == "object" else []):
            for i, g in enumerate(groups.items if groups.kind == "array" else []):
                found = value(text, g)
                if ours_group(found):
                    cut = json_text.cut_item(text, groups, i)
                elif isinstance(found, dict) and any(ours_handler(h) for h in found.get("hooks") or []):
                    handlers = g.get("hooks")
                    assert handlers is not None
                    j = next(j for j, h in enumerate(handlers.items) if ours_handler(value(text, h)))
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
    """An MCP entry as install writes it (Claude Code's or Gemini CLI's), naming backscroll by an absolute path
    (another venv's too), nothing the user added or changed: not ``claude mcp add``'s entry of a bare ``backscroll``,
    not one with ``env`` values or another timeout."""
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) and installed_program(
        entry["command"]) and entry in (mcp_entry("claude", entry["command"]), mcp_entry("gemini", entry["command"]))


def add_mcp(path: Path, text: str, agent: str, program: str) -> tuple[str, list[str]]:
    root = json_text.parse(text)
    servers = shape(path, '"mcpServers"', root.get("mcpServers"), "object")
    if servers is None:
        text, ins = json_text.insert_member(text, root, "mcpServers", {"backscroll": mcp_entry(agent, program)})
        return text, [ins]
    existing = shape(path, '"mcpServers.backscroll"', servers.get("backscroll"), "object")
    if existing is not None:
        if not ours_mcp(value(text, existing)) or value(text, existing) == mcp_entry(agent, program):
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
    if entry is None or not ours_mcp(value(text, entry)):
        return text
    return json_text.cut_member(text, servers, "backscroll")
