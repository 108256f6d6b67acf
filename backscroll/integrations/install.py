"""``backscroll install skill|instructions|hooks|mcp``: write (or remove) the agents' configuration.

What each kind installs for each agent, and where; ``installed()`` reports it for ``status``. Every
change is planned first as ``Change(path, before, after)`` (text, None = absent), so ``--dry-run``
prints a unified diff and ``--uninstall`` is the inverse plan. What is ours is marked: the skill file
carries an "installed by backscroll" comment, instruction files a
``<!-- backscroll:begin … -->``/``<!-- backscroll:end -->`` block, hook handlers a command starting
``backscroll hook``, MCP entries the key ``backscroll`` (Codex: a marker comment in the table).
The reversible editing of those files (JSON, TOML, Markdown) and the atomic writes are in
``backscroll.integrations.install_files``.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

from backscroll.errors import UsageError
from backscroll.integrations.install_files import (
    Change,
    add_block,
    apply,
    block_span,
    codex_add,
    codex_remove,
    codex_span,
    json_change,
    read_or_none,
    remove_block,
)

SKILL_MARK = "installed by backscroll"
HOOK_PREFIX = "backscroll hook"
SKILL_AGENTS = ("claude", "codex", "gemini", "pi", "opencode")
HOOK_AGENTS = ("claude", "codex")
MCP_AGENTS = ("claude", "codex", "gemini")


def home() -> Path:
    return Path(os.path.expanduser("~"))


def claude_dir() -> Path:
    conf = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(conf).expanduser() if conf else home() / ".claude"


def codex_dir() -> Path:
    return Path(os.environ["CODEX_HOME"]).expanduser() if os.environ.get("CODEX_HOME") else home() / ".codex"


def gemini_dir() -> Path:
    return home() / ".gemini"


def _agents(agent: str, allowed: tuple[str, ...]) -> tuple[list[str], bool]:
    """The agents to act on, and whether they were named (named ones are written even without a home)."""
    if agent == "all":
        return list(allowed), False
    if agent not in allowed:
        raise UsageError(f"unknown agent {agent!r} here", hint=f"use one of: {', '.join(allowed)}, all")
    return [agent], True


# -- skill ----------------------------------------------------------------------------------

def skill_text() -> str:
    return resources.files("backscroll.integrations").joinpath("SKILL.md").read_text(encoding="utf-8")


def skill_targets(agent: str = "all") -> list[tuple[str, Path]]:
    """(agent, SKILL.md path) for the agents asked for that exist (their home directory is there)."""
    names, named = _agents(agent, SKILL_AGENTS)
    roots = {"claude": (claude_dir(), claude_dir() / "skills"),
             "codex": (codex_dir(), home() / ".agents" / "skills"),
             "gemini": (gemini_dir(), home() / ".agents" / "skills"),
             "pi": (home() / ".pi" / "agent", home() / ".pi" / "agent" / "skills"),
             "opencode": (home() / ".config" / "opencode", home() / ".config" / "opencode" / "skills")}
    out: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    for name in names:
        agent_home, skills = roots[name]
        path = skills / "backscroll" / "SKILL.md"
        if (named or agent_home.is_dir()) and path not in seen:
            seen.add(path)
            out.append((name, path))
    return out


def plan_skill(agent: str = "all", uninstall: bool = False) -> list[Change]:
    text = skill_text()
    changes = []
    for name, path in skill_targets(agent):
        before = read_or_none(path)
        if uninstall:
            after = None if before is not None and SKILL_MARK in before else before
        else:
            after = text if before is None or SKILL_MARK in before else before  # never overwrite a user's own skill
        changes.append(Change(path, before, after, f"skill ({name})"))
    return changes


# -- instructions block ---------------------------------------------------------------------

def instructions_block() -> str:
    text = resources.files("backscroll.integrations").joinpath("INSTRUCTIONS.md").read_text(encoding="utf-8")
    return text.rstrip("\n") + "\n"


def instruction_targets(agent: str = "all") -> list[tuple[str, Path]]:
    names, named = _agents(agent, MCP_AGENTS)
    files = {"claude": (claude_dir(), claude_dir() / "CLAUDE.md"), "codex": (codex_dir(), codex_dir() / "AGENTS.md"),
             "gemini": (gemini_dir(), gemini_dir() / "GEMINI.md")}
    return [(n, files[n][1]) for n in names if named or files[n][0].is_dir()]


def plan_instructions(agent: str = "all", uninstall: bool = False) -> list[Change]:
    block = instructions_block()
    changes = []
    for name, path in instruction_targets(agent):
        before = read_or_none(path)
        if uninstall:
            after = None if before is None else remove_block(before)
            if after == "" and before is not None and before != "":
                after = None  # the file held only our block: it was ours
        else:
            after = add_block(before or "", block)
        changes.append(Change(path, before, after, f"instructions ({name})"))
    return changes


# -- hooks ----------------------------------------------------------------------------------

HOOK_EVENTS = (("SessionStart", "session-start", "startup|resume|clear|compact", 10),
               ("UserPromptSubmit", "prompt", None, 5))


def _ours(handler) -> bool:
    return isinstance(handler, dict) and str(handler.get("command", "")).startswith(HOOK_PREFIX)


def remove_hooks(obj: dict) -> dict:
    hooks = obj.get("hooks")
    if not isinstance(hooks, dict):
        return obj
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(_ours(h) for h in g["hooks"]):
                rest = [h for h in g["hooks"] if not _ours(h)]
                if rest:
                    kept.append({**g, "hooks": rest})
            else:
                kept.append(g)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del obj["hooks"]
    return obj


def add_hooks(obj: dict, agent: str) -> dict:
    obj = remove_hooks(obj)
    hooks = obj.setdefault("hooks", {})
    for event, arg, matcher, timeout in HOOK_EVENTS:
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": f"{HOOK_PREFIX} {agent} {arg}", "timeout": timeout}]
        hooks.setdefault(event, []).append(group)
    return obj


def hook_file(agent: str) -> Path:
    return claude_dir() / "settings.json" if agent == "claude" else codex_dir() / "hooks.json"


def plan_hooks(agent: str = "all", uninstall: bool = False) -> list[Change]:
    names, named = _agents(agent, HOOK_AGENTS)
    dirs = {"claude": claude_dir(), "codex": codex_dir()}
    out = []
    for name in names:
        if not (named or dirs[name].is_dir()):
            continue
        edit = remove_hooks if uninstall else (lambda o, n=name: add_hooks(o, n))
        out.append(json_change(hook_file(name), edit, uninstall, f"hooks ({name})"))
    return out


# -- MCP registration -----------------------------------------------------------------------

MCP_ENTRY = {"claude": {"type": "stdio", "command": "backscroll", "args": ["mcp"], "env": {}},
             "gemini": {"command": "backscroll", "args": ["mcp"], "timeout": 30000, "trust": False}}


def mcp_file(agent: str) -> Path:
    # Claude Code keeps .claude.json in $CLAUDE_CONFIG_DIR when that is set, else in the home directory.
    claude = claude_dir() / ".claude.json" if os.environ.get("CLAUDE_CONFIG_DIR") else home() / ".claude.json"
    return {"claude": claude, "codex": codex_dir() / "config.toml",
            "gemini": gemini_dir() / "settings.json"}[agent]


def plan_mcp(agent: str = "all", uninstall: bool = False) -> list[Change]:
    names, named = _agents(agent, MCP_AGENTS)
    dirs = {"claude": claude_dir(), "codex": codex_dir(), "gemini": gemini_dir()}
    out = []
    for name in names:
        path = mcp_file(name)
        if not (named or dirs[name].is_dir() or path.exists()):
            continue
        if name == "codex":
            before = read_or_none(path)
            after = (None if before is None else codex_remove(before)) if uninstall else codex_add(before or "")
            if uninstall and before and after == "":
                after = None
            out.append(Change(path, before, after, "mcp (codex)"))
            continue

        def edit(o, n=name):
            servers = o.get("mcpServers")
            if uninstall:
                if isinstance(servers, dict) and servers.get("backscroll", {}).get("command") == "backscroll":
                    del servers["backscroll"]
                    if not servers:
                        del o["mcpServers"]
            else:
                if not isinstance(servers, dict):
                    servers = o["mcpServers"] = {}
                servers.setdefault("backscroll", MCP_ENTRY[n])
            return o

        out.append(json_change(path, edit, uninstall, f"mcp ({name})", delete_if_empty=name != "claude"))
    return out


PLANS = {"skill": plan_skill, "instructions": plan_instructions, "hooks": plan_hooks, "mcp": plan_mcp}


# -- running --------------------------------------------------------------------------------

def run(kind: str, agent: str = "all", *, uninstall: bool = False, dry_run: bool = False) -> list[Change]:
    changes = PLANS[kind](agent, uninstall)
    if not dry_run:
        for c in changes:
            apply(c, uninstall)
    return changes


def installed() -> list[dict]:
    """What ``install`` put in place, for ``backscroll status``."""
    out = []
    for name, path in skill_targets("all"):
        text = read_or_none(path)
        if text and SKILL_MARK in text:
            out.append({"kind": "skill", "agent": name, "path": str(path)})
    for name, path in instruction_targets("all"):
        text = read_or_none(path)
        if text and block_span(text):
            out.append({"kind": "instructions", "agent": name, "path": str(path)})
    for name in HOOK_AGENTS:
        path = hook_file(name)
        text = read_or_none(path)
        if text and HOOK_PREFIX in text:
            out.append({"kind": "hooks", "agent": name, "path": str(path)})
    for name in MCP_AGENTS:
        path = mcp_file(name)
        text = read_or_none(path)
        if not text:
            continue
        if name == "codex":
            ok = codex_span(text) is not None
        else:
            try:
                ok = "backscroll" in (json.loads(text).get("mcpServers") or {})
            except (ValueError, AttributeError):
                ok = False
        if ok:
            out.append({"kind": "mcp", "agent": name, "path": str(path)})
    return out
