"""Byte-for-byte reversible edits of the agents' files: planned changes, marked blocks, JSON, TOML.

A ``Change(path, before, after)`` (text, None = absent) is planned before anything is written, so a
dry run can print it as a diff. Markdown files get a ``<!-- backscroll:begin … -->``/``<!-- backscroll:end -->``
block; Codex's ``config.toml`` a ``[mcp_servers.backscroll]`` table carrying a marker comment. JSON files
are re-serialised keeping key order, indent and the final newline; the original bytes are kept beside
them (``*.backscroll-backup``) and put back on uninstall when nothing else changed, so an install/uninstall
round trip leaves every byte as it was. Writes are atomic (temp file + replace). What each kind installs
for each agent is ``backscroll.integrations.install``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from backscroll.errors import UsageError

BEGIN = "<!-- backscroll:begin"
END = "<!-- backscroll:end -->"
BACKUP = ".backscroll-backup"
CODEX_MARK = "# added by `backscroll install mcp`; `backscroll install mcp --uninstall` removes it"


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


def read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


# -- Markdown: the marked block -------------------------------------------------------------

def block_span(text: str) -> tuple[int, int] | None:
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
    span = block_span(text)
    if span:
        return text[:span[0]] + block + text[span[1]:]
    return text + ("\n" if text else "") + block


def _cut(text: str, span: tuple[int, int] | None) -> str:
    """``text`` without ``span`` and the line break before it (what adding it put there)."""
    if not span:
        return text
    start, end = span
    if start > 0 and text[start - 1] == "\n":
        start -= 1
    return text[:start] + text[end:]


def remove_block(text: str) -> str:
    """The inverse of ``add_block`` on a text that had no block."""
    return _cut(text, block_span(text))


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


def json_change(path: Path, edit, uninstall: bool, what: str, delete_if_empty: bool = True) -> Change:
    """Plan a JSON edit; on uninstall, put the original bytes back when the content matches them."""
    before = read_or_none(path)
    obj = _load_json(path, before)
    new = edit(json.loads(json.dumps(obj)))
    backup = read_or_none(path.with_name(path.name + BACKUP))
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


# -- Codex's config.toml: the marked table --------------------------------------------------

CODEX_TABLE = (f'[mcp_servers.backscroll]\n{CODEX_MARK}\n'
               'command = "backscroll"\nargs = ["mcp"]\nstartup_timeout_sec = 30\n')
_TABLE_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(#.*)?$", re.M)


def codex_span(text: str) -> tuple[int, int] | None:
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
    return bool(re.search(r"^\s*\[\s*mcp_servers\s*\.\s*backscroll\s*\]", text, re.M)) and codex_span(text) is None


def codex_add(text: str) -> str:
    if codex_span(text) or codex_has_foreign(text):
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
    return _cut(text, codex_span(text))


# -- writing --------------------------------------------------------------------------------

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
    current = read_or_none(change.path)
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
