"""``backscroll install skill|instructions|hooks|mcp``: write (or remove) the agents' configuration.

What each kind installs for each agent, and where; ``installed()`` reports it for ``status``. Every
change is planned first (``install_files.Change``), so ``--dry-run`` prints a unified diff. What is
ours is marked: the skill file carries an "installed by backscroll" comment, instruction files a
marked block, hook handlers a command running ``backscroll hook``, MCP entries the key ``backscroll``
with our command (Codex: a marker comment in the table). Agents start hooks and MCP servers with
their own PATH, so their configuration names this backscroll by its absolute path. JSON files are
edited in place (``json_text``): not a byte of the user's is rewritten; a shape we do not expect
(``"hooks": []``) is refused with the file named. Uninstall takes out what the ledger says was added.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

from backscroll.errors import UsageError
from backscroll.integrations.install_entries import add_hooks, add_mcp, ours_handler, ours_mcp, own_hook
from backscroll.integrations.install_files import (
    Change,
    Ledger,
    add_block,
    apply_settled,
    block_span,
    missing_dirs,
    remove_block,
    remove_old_backup,
    text_change,
)
from backscroll.integrations.install_json import json_change, json_has
from backscroll.integrations.install_toml import codex_change, codex_changed, codex_has_foreign, codex_span
from backscroll.integrations.install_write import check_editable, read_or_none

SKILL_MARK = "installed by backscroll"
SKILL_AGENTS = ("claude", "codex", "gemini", "pi", "opencode")
HOOK_AGENTS = ("claude", "codex")
MCP_AGENTS = ("claude", "codex", "gemini")


def home() -> Path:
    return Path(os.path.expanduser("~"))


def _xdg(var: str, default: str) -> Path:
    return Path(os.environ.get(var) or home() / default)


def claude_dir() -> Path:
    conf = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(conf).expanduser() if conf else home() / ".claude"


def codex_dir() -> Path:
    return Path(os.environ["CODEX_HOME"]).expanduser() if os.environ.get("CODEX_HOME") else home() / ".codex"


def gemini_dir() -> Path:
    return home() / ".gemini"


def executable() -> str:
    """The absolute path of the ``backscroll`` running now (agents may not have its folder on PATH)."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "backscroll" and argv0.is_file():
        return os.path.abspath(argv0)
    beside = Path(sys.executable).with_name("backscroll")
    return str(beside) if beside.is_file() else shutil.which("backscroll") or "backscroll"


def on_path_note() -> str | None:
    """A warning when the ``backscroll`` that skills and instructions tell agents to run is not on PATH."""
    if shutil.which("backscroll") is None:
        return (f"`backscroll` is not on PATH: agents told to run `backscroll search` will not find it; add "
                f"{Path(executable()).parent} to PATH")
    return None


def _agents(agent: str, allowed: tuple[str, ...], what: str) -> tuple[list[str], bool]:
    """The agents to act on for ``what`` (a skill, hooks, ...), and whether they were named (named ones are
    written even without a home)."""
    if agent == "all":
        return list(allowed), False
    if agent not in allowed:
        known = agent in (*SKILL_AGENTS, *MCP_AGENTS, *HOOK_AGENTS)
        names = f"{', '.join(allowed[:-1])} and {allowed[-1]}" if len(allowed) > 1 else allowed[0]
        raise UsageError(f"{what} can be installed for {names} only" if known else
                         f"unknown agent {agent!r}", hint=f"use one of: {', '.join(allowed)}, all")
    return [agent], True


def ledger() -> Ledger:
    from backscroll.config import resolve
    return Ledger(resolve().home.value / "installed.json")


# -- skill ----------------------------------------------------------------------------------

def skill_text() -> str:
    return resources.files("backscroll.integrations").joinpath("SKILL.md").read_text(encoding="utf-8")


def skill_targets(agent: str = "all") -> list[tuple[str, Path]]:
    """(agent, SKILL.md path) for the agents asked for that exist (their config or data folder is there)."""
    names, named = _agents(agent, SKILL_AGENTS, "the skill")
    opencode = _xdg("XDG_CONFIG_HOME", ".config") / "opencode"
    roots = {"claude": ((claude_dir(),), claude_dir() / "skills"),
             "codex": ((codex_dir(),), home() / ".agents" / "skills"),
             "gemini": ((gemini_dir(),), home() / ".agents" / "skills"),
             "pi": ((home() / ".pi" / "agent",), home() / ".pi" / "agent" / "skills"),
             "opencode": ((opencode, _xdg("XDG_DATA_HOME", ".local/share") / "opencode"), opencode / "skills")}
    out: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    for name in names:
        agent_homes, skills = roots[name]
        path = skills / "backscroll" / "SKILL.md"
        if (named or any(h.is_dir() for h in agent_homes)) and path not in seen:
            seen.add(path)
            out.append((name, path))
    return out


def plan_skill(agent: str = "all", uninstall: bool = False, book: Ledger | None = None) -> list[Change]:
    text = skill_text()
    changes = []
    for name, path in skill_targets(agent):
        before = read_or_none(path)
        # ours only as install last wrote it (or, with no record of it, as this release writes it): edited, it stays
        written = book.inserted(path, "skill") if book else []
        ours = before is not None and SKILL_MARK in before and before == (written[-1] if written else text)
        own = () if before is None or ours or (uninstall and SKILL_MARK not in before) else (
            f"{path} is a skill of your own" if SKILL_MARK not in before else f"{path} holds changes of yours",)
        after = (None if ours else before) if uninstall else (text if before is None or ours else before)
        changes.append(Change(path, before, after, f"skill ({name})", "skill", (text,) if after == text else (),
                              notes=tuple(f"{n}; it is left as it is" for n in own),
                              kept=uninstall and before is not None and SKILL_MARK in before and not ours))
    return changes


# -- instructions block ---------------------------------------------------------------------

def instructions_block() -> str:
    text = resources.files("backscroll.integrations").joinpath("INSTRUCTIONS.md").read_text(encoding="utf-8")
    return text.rstrip("\n") + "\n"


def instruction_targets(agent: str = "all") -> list[tuple[str, Path]]:
    names, named = _agents(agent, MCP_AGENTS, "instructions")
    files = {"claude": (claude_dir(), claude_dir() / "CLAUDE.md"), "codex": (codex_dir(), codex_dir() / "AGENTS.md"),
             "gemini": (gemini_dir(), gemini_dir() / "GEMINI.md")}
    return [(n, files[n][1]) for n in names if named or files[n][0].is_dir()]


def plan_instructions(agent: str = "all", uninstall: bool = False, book: Ledger | None = None) -> list[Change]:
    block = instructions_block()
    return [text_change(path, f"instructions ({name})", "instructions", uninstall, book,
                        lambda text: add_block(text, block), remove_block) for name, path in instruction_targets(agent)]


# -- hooks and MCP entries ------------------------------------------------------------------

def hook_file(agent: str) -> Path:
    return claude_dir() / "settings.json" if agent == "claude" else codex_dir() / "hooks.json"


def plan_hooks(agent: str = "all", uninstall: bool = False, book: Ledger | None = None) -> list[Change]:
    names, named = _agents(agent, HOOK_AGENTS, "hooks")
    dirs = {"claude": claude_dir(), "codex": codex_dir()}
    out = []
    for n in (n for n in names if named or dirs[n].is_dir()):
        change = json_change(hook_file(n), "hooks", f"hooks ({n})", uninstall, book,
                             lambda p, t, n=n: add_hooks(p, t, n, executable()))
        own = not uninstall and json_has(hook_file(n), lambda v, n=n: any(
            own_hook(g, n) for g in (v.get("hooks") or {}).values()))
        out.append(replace(change, notes=(f"{hook_file(n)} already runs `backscroll hook` from a handler of your own; "
                                          "that event is left as it is",)) if own else change)
    return out


def mcp_file(agent: str) -> Path:
    # Claude Code keeps .claude.json in $CLAUDE_CONFIG_DIR when that is set, else in the home directory.
    claude = claude_dir() / ".claude.json" if os.environ.get("CLAUDE_CONFIG_DIR") else home() / ".claude.json"
    return {"claude": claude, "codex": codex_dir() / "config.toml", "gemini": gemini_dir() / "settings.json"}[agent]


def plan_mcp(agent: str = "all", uninstall: bool = False, book: Ledger | None = None) -> list[Change]:
    names, named = _agents(agent, MCP_AGENTS, "the MCP server")
    dirs = {"claude": claude_dir(), "codex": codex_dir(), "gemini": gemini_dir()}
    out = []
    for name in names:
        path = mcp_file(name)
        if not (named or dirs[name].is_dir() or path.exists()):
            continue
        if name == "codex":
            change = codex_change(path, uninstall, book, executable())
            if not uninstall and codex_has_foreign(change.before or ""):
                change = replace(change, notes=(f"{path} already has an [mcp_servers.backscroll] table of your own; "
                                                "it is left as it is",))
            elif codex_changed(change.before or ""):
                change = replace(change, kept=uninstall, notes=(f"{path}: [mcp_servers.backscroll] holds changes of "
                                                                "yours; it is left as it is",))
            out.append(change)
            continue
        change = json_change(path, "mcp", f"mcp ({name})", uninstall, book,  # (Gemini CLI reads comments)
                             lambda p, t, n=name: add_mcp(p, t, n, executable()), commented=name == "gemini")
        if json_has(path, lambda v: "backscroll" in (v.get("mcpServers") or {})
                    and not ours_mcp(v["mcpServers"]["backscroll"]), commented=name == "gemini"):
            change = replace(change, notes=(f"{path} already has a `backscroll` MCP entry of your own; it is left "
                                            "as it is",))
        out.append(change)
    return out


PLANS = {"skill": plan_skill, "instructions": plan_instructions, "hooks": plan_hooks, "mcp": plan_mcp}


# -- running --------------------------------------------------------------------------------

def run(kind: str, agent: str = "all", *, uninstall: bool = False, dry_run: bool = False) -> list[Change]:
    book = ledger()
    changes = PLANS[kind](agent, uninstall, book)
    if dry_run:
        return changes
    for c in changes:
        if c.changed:
            check_editable(c.path)  # before anything is written: a refused file stops the whole run
    done: list[Change] = []

    def replan(path: Path) -> Change:  # from what the file holds now
        again = [n for n in PLANS[kind](agent, uninstall, book) if n.path == path]
        if not again:
            raise UsageError(f"{path} changed while backscroll was editing it; nothing was written to it",
                             hint="run the command again")
        return again[0]

    try:
        for c in changes:
            new_dirs = [] if uninstall else missing_dirs(c.path)
            c = apply_settled(c, replan)
            done.append(c)
            remove_old_backup(c.path)
            if uninstall and not c.kept:
                book.forget(c)
            elif c.changed:
                book.record(c)
                book.made(new_dirs)
        if uninstall:
            book.remove_empty_dirs()
    finally:  # what was written is recorded even when a later file stops the run
        if any(c.changed for c in done) or uninstall:
            book.save()
    return done


def codex_hooks_note() -> str:
    """What Codex needs before our hooks run: trust in its /hooks view, and the feature not turned off."""
    import tomllib

    try:
        conf = tomllib.loads(read_or_none(codex_dir() / "config.toml") or "")
    except (tomllib.TOMLDecodeError, UsageError):
        conf = {}
    features = conf.get("features")
    features = features if isinstance(features, dict) else {}
    flags = [features[k] for k in ("hooks", "codex_hooks") if k in features]
    if flags and not any(v is True for v in flags):
        return ("codex: hooks are turned off in ~/.codex/config.toml: set `[features] hooks = true`, then trust "
                "them once in codex's /hooks view")
    return "codex: trust the new hooks once in codex's /hooks view"


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
        if json_has(hook_file(name), lambda v: any(ours_handler(h) for gs in (v.get("hooks") or {}).values()
                                                      if isinstance(gs, list) for g in gs if isinstance(g, dict)
                                                      for h in g.get("hooks") or [])):
            out.append({"kind": "hooks", "agent": name, "path": str(hook_file(name))})
    for name in MCP_AGENTS:
        path = mcp_file(name)
        if name == "codex":
            ok = codex_span(read_or_none(path) or "") is not None
        else:
            ok = json_has(path, lambda v: ours_mcp((v.get("mcpServers") or {}).get("backscroll")), name == "gemini")
        if ok:
            out.append({"kind": "mcp", "agent": name, "path": str(path)})
    return out
