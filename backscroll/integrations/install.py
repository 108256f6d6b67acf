"""``backscroll install skill|instructions|hooks|mcp``: write (or remove) the agents' configuration.

Every change is planned first as ``Change(path, before, after)`` (text, None = absent), so
``--dry-run`` prints a unified diff and ``--uninstall`` is the inverse plan. What is ours is marked:
the skill file carries an "installed by backscroll" comment, instruction files a
``<!-- backscroll:begin … -->``/``<!-- backscroll:end -->`` block, hook handlers a command starting
``backscroll hook``, MCP entries the key ``backscroll`` (Codex: a marker comment in the table).
JSON files are re-serialised keeping key order, indent and the final newline; the original bytes are
kept beside them (``*.backscroll-backup``) and put back on uninstall when nothing else changed, so an
install/uninstall round trip leaves every byte as it was. Writes are atomic (temp file + replace).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from backscroll.errors import UsageError

SKILL_MARK = "installed by backscroll"
BEGIN = "<!-- backscroll:begin"
END = "<!-- backscroll:end -->"
HOOK_PREFIX = "backscroll hook"
BACKUP = ".backscroll-backup"
CODEX_MARK = "# added by `backscroll install mcp`; `backscroll install mcp --uninstall` removes it"
SKILL_AGENTS = ("claude", "codex", "gemini", "pi", "opencode")
HOOK_AGENTS = ("claude", "codex")
MCP_AGENTS = ("claude", "codex", "gemini")


@dataclass(frozen=True)
class Change:
    path: Path
    before: str | None
    after: str | None
    what: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, f"{self.path} (before)", f"{self.path} (after)"))


def home() -> Path:
    return Path(os.path.expanduser("~"))


def claude_dir() -> Path:
    conf = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(conf).expanduser() if conf else home() / ".claude"


def codex_dir() -> Path:
    return Path(os.environ["CODEX_HOME"]).expanduser() if os.environ.get("CODEX_HOME") else home() / ".codex"


def gemini_dir() -> Path:
    return home() / ".gemini"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


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
        before = _read(path)
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


def _block_span(text: str) -> tuple[int, int] | None:
    start = text.find(BEGIN)
    if start < 0:
        return None
    end = text.find(END, start)
    if end < 0:
        return None
    end += len(END)
    if text[end:end + 1] == "\n":
        end += 1
    return start, end


def add_block(text: str, block: str) -> str:
    """``text`` with the marked block replaced in place, or appended after one newline."""
    span = _block_span(text)
    if span:
        return text[:span[0]] + block + text[span[1]:]
    return text + ("\n" if text else "") + block


def remove_block(text: str) -> str:
    """The inverse of ``add_block`` on a text that had no block."""
    span = _block_span(text)
    if not span:
        return text
    start, end = span
    if start > 0 and text[start - 1] == "\n":
        start -= 1
    return text[:start] + text[end:]


def instruction_targets(agent: str = "all") -> list[tuple[str, Path]]:
    names, named = _agents(agent, MCP_AGENTS)
    files = {"claude": (claude_dir(), claude_dir() / "CLAUDE.md"), "codex": (codex_dir(), codex_dir() / "AGENTS.md"),
             "gemini": (gemini_dir(), gemini_dir() / "GEMINI.md")}
    return [(n, files[n][1]) for n in names if named or files[n][0].is_dir()]


def plan_instructions(agent: str = "all", uninstall: bool = False) -> list[Change]:
    block = instructions_block()
    changes = []
    for name, path in instruction_targets(agent):
        before = _read(path)
        if uninstall:
            after = None if before is None else remove_block(before)
            if after == "" and before is not None and before != "":
                after = None  # the file held only our block: it was ours
        else:
            after = add_block(before or "", block)
        changes.append(Change(path, before, after, f"instructions ({name})"))
    return changes


# -- JSON files -----------------------------------------------------------------------------

def _indent(text: str):
    m = re.search(r"\n([ \t]+)\S", text)
    if not m:
        return 2
    return m.group(1) if "\t" in m.group(1) else len(m.group(1))


def dump_json(obj, like: str | None) -> str:
    """``obj`` serialised in the style of ``like`` (indent, final newline); key order as given."""
    indent = _indent(like) if like else 2
    out = json.dumps(obj, indent=indent, ensure_ascii=False)
    return out + "\n" if like is None or like.endswith("\n") else out


def _load_json(path: Path, text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path} is not plain JSON ({exc}); nothing was changed",
                         hint="add the entry by hand (see --dry-run on an empty file for the snippet)") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    return obj


def _strip_empty_hooks(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if not (k in ("hooks", "mcpServers") and v == {})}


def _json_change(path: Path, edit, uninstall: bool, what: str, delete_if_empty: bool = True) -> Change:
    """Plan a JSON edit; on uninstall, put the original bytes back when the content matches them."""
    before = _read(path)
    obj = _load_json(path, before)
    new = edit(json.loads(json.dumps(obj)))
    backup = _read(path.with_name(path.name + BACKUP))
    if uninstall:
        if backup is not None:
            try:
                if _strip_empty_hooks(json.loads(backup)) == _strip_empty_hooks(new):
                    return Change(path, before, backup, what)
            except ValueError:
                pass
        elif before is not None and _strip_empty_hooks(new) == {} and delete_if_empty and new != obj:
            return Change(path, before, None, what)  # we created the file
    if new == obj:
        return Change(path, before, before, what)
    return Change(path, before, dump_json(new, before), what)


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
        out.append(_json_change(hook_file(name), edit, uninstall, f"hooks ({name})"))
    return out


# -- MCP registration -----------------------------------------------------------------------

MCP_ENTRY = {"claude": {"type": "stdio", "command": "backscroll", "args": ["mcp"], "env": {}},
             "gemini": {"command": "backscroll", "args": ["mcp"], "timeout": 30000, "trust": False}}
CODEX_TABLE = (f'[mcp_servers.backscroll]\n{CODEX_MARK}\n'
               'command = "backscroll"\nargs = ["mcp"]\nstartup_timeout_sec = 30\n')
_TABLE_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(#.*)?$", re.M)


def _codex_span(text: str) -> tuple[int, int] | None:
    """The span of our ``[mcp_servers.backscroll]`` table (with its subtables), if it carries our mark."""
    headers = list(_TABLE_HEADER.finditer(text))
    for i, m in enumerate(headers):
        if m.group(1).replace(" ", "") == "mcp_servers.backscroll":
            end = len(text)
            for n in headers[i + 1:]:
                if not n.group(1).replace(" ", "").startswith("mcp_servers.backscroll."):
                    end = n.start()
                    break
            return (m.start(), end) if CODEX_MARK in text[m.start():end] else None
    return None


def codex_has_foreign(text: str) -> bool:
    return bool(re.search(r"^\s*\[\s*mcp_servers\s*\.\s*backscroll\s*\]", text, re.M)) and _codex_span(text) is None


def codex_add(text: str) -> str:
    if _codex_span(text) or codex_has_foreign(text):
        return text
    new = text + ("\n" if text else "") + CODEX_TABLE
    import tomllib

    try:
        tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"adding [mcp_servers.backscroll] would not be valid TOML ({exc}); nothing was changed",
                         hint="add it by hand: " + CODEX_TABLE.replace("\n", "; ")) from None
    return new


def codex_remove(text: str) -> str:
    span = _codex_span(text)
    if not span:
        return text
    start, end = span
    if start > 0 and text[start - 1] == "\n":
        start -= 1
    return text[:start] + text[end:]


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
            before = _read(path)
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

        out.append(_json_change(path, edit, uninstall, f"mcp ({name})", delete_if_empty=name != "claude"))
    return out


PLANS = {"skill": plan_skill, "instructions": plan_instructions, "hooks": plan_hooks, "mcp": plan_mcp}


# -- applying -------------------------------------------------------------------------------

def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    tmp = path.with_name(f".{path.name}.backscroll-{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


def apply(change: Change, uninstall: bool) -> None:
    """Write one planned change. A JSON file's first modification keeps its original bytes as a backup."""
    if not change.changed:
        return
    current = _read(change.path)
    if current != change.before:
        raise UsageError(f"{change.path} changed while backscroll was editing it; nothing was written",
                         hint="run the command again")
    backup = change.path.with_name(change.path.name + BACKUP)
    is_json = change.path.suffix == ".json"
    if change.after is None:
        change.path.unlink()
        if change.path.name == "SKILL.md":
            try:
                change.path.parent.rmdir()
            except OSError:
                pass
    else:
        if is_json and not uninstall and change.before is not None and not backup.exists():
            _write(backup, change.before)
        _write(change.path, change.after)
    if uninstall and is_json and backup.exists():
        backup.unlink()


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
        text = _read(path)
        if text and SKILL_MARK in text:
            out.append({"kind": "skill", "agent": name, "path": str(path)})
    for name, path in instruction_targets("all"):
        text = _read(path)
        if text and _block_span(text):
            out.append({"kind": "instructions", "agent": name, "path": str(path)})
    for name in HOOK_AGENTS:
        path = hook_file(name)
        text = _read(path)
        if text and HOOK_PREFIX in text:
            out.append({"kind": "hooks", "agent": name, "path": str(path)})
    for name in MCP_AGENTS:
        path = mcp_file(name)
        text = _read(path)
        if not text:
            continue
        if name == "codex":
            ok = _codex_span(text) is not None
        else:
            try:
                ok = "backscroll" in (json.loads(text).get("mcpServers") or {})
            except (ValueError, AttributeError):
                ok = False
        if ok:
            out.append({"kind": "mcp", "agent": name, "path": str(path)})
    return out
