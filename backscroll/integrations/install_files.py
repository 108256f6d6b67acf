"""Reversible edits of the agents' files: planned changes, the ledger of what was added, safe writes.

A ``Change(path, before, after)`` (text, None = absent) is planned before anything is written, so a
dry run can print it as a diff. What install adds is recorded in a ledger in our data dir
(``installed.json``): per file and kind, the exact text inserted, the JSON containers it created and
whether install created the file. Uninstall takes out exactly that text, which gives the original bytes
back (CRLF, spacing, number spellings), deletes a file only when install created it, and without a
ledger entry removes only what is recognisably ours. Markdown files get a ``<!-- backscroll:begin … -->``/
``<!-- backscroll:end -->`` block; Codex's ``config.toml`` a ``[mcp_servers.backscroll]`` table carrying a
marker comment (``install_toml``). How files are written is ``install_write``; what each kind installs for each agent is
``backscroll.integrations.install``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from backscroll.integrations.install_write import Raced, read_or_none, still_as_read, write_text

BEGIN = "<!-- backscroll:begin"
END = "<!-- backscroll:end -->"
OLD_BACKUP = ".backscroll-backup"  # what releases before the ledger kept beside a JSON file


@dataclass(frozen=True)
class Change:
    path: Path
    before: str | None
    after: str | None
    what: str
    kind: str = ""
    inserted: tuple[str, ...] = ()  # install: the texts added (for the ledger)
    containers: tuple[tuple[str, ...], ...] = ()  # install: the JSON containers (as key paths) it created
    notes: tuple[str, ...] = field(default=())
    kept: bool = False  # uninstall: our part holds the user's changes, so it stays (and stays on record)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff; a last line without its newline is marked as ``diff`` marks it, so the next file's
        header starts a line of its own."""
        a, b = (_lines(text or "") for text in (self.before, self.after))
        lines = difflib.unified_diff(a, b, f"{self.path} (before)", f"{self.path} (after)")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _lines(text: str) -> list[str]:
    """``text``'s lines, each with its ``\n``: split at ``\n`` only (``splitlines`` splits at U+2028 and ``\x0c``
    too, which a diff must keep inside their lines)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


# -- the ledger -----------------------------------------------------------------------------

class Ledger:
    """What install added to each file: ``{path: {kind: {"created": bool, "inserted": [text, …],
    "containers": [[key, …], …], "blank"?: text}}}`` (a record of text, so it is checked against the file
    before use; ``blank``: the file was empty, or white space, before)."""

    def __init__(self, path: Path):
        self.path = path
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self.files: dict = data.get("files", {}) if isinstance(data, dict) else {}
        dirs = data.get("dirs", []) if isinstance(data, dict) else []
        self.dirs: set[str] = {d for d in dirs if isinstance(d, str)} if isinstance(dirs, list) else set()

    def entry(self, file: Path, kind: str) -> dict | None:
        found = self.files.get(str(file), {}).get(kind)
        return found if isinstance(found, dict) else None

    def inserted(self, file: Path, kind: str) -> list[str]:
        found = (self.entry(file, kind) or {}).get("inserted")
        return [t for t in found if isinstance(t, str) and t] if isinstance(found, list) else []

    def containers(self, file: Path, kind: str) -> list[tuple[str, ...]]:
        found = (self.entry(file, kind) or {}).get("containers")
        return [tuple(p) for p in found if isinstance(p, list) and p and all(isinstance(k, str) for k in p)] \
            if isinstance(found, list) else []

    def record(self, change: Change) -> None:
        """Install replaced what it had added before (``change.inserted`` is all of ours now); the containers
        it ever created stay listed, so that uninstall can take them out once they are empty."""
        old = self.entry(change.path, change.kind) or {}
        created = old.get("created", False) or change.before is None
        containers = sorted({*self.containers(change.path, change.kind), *change.containers})
        entry = {"created": created, "inserted": list(change.inserted), "containers": [list(p) for p in containers]}
        blank = old.get("blank") if "blank" in old else change.before
        if isinstance(blank, str) and not blank.strip():  # (an empty file: uninstall gives its bytes back)
            entry["blank"] = blank
        self.files.setdefault(str(change.path), {})[change.kind] = entry

    def forget(self, change: Change) -> None:
        kinds = self.files.get(str(change.path), {})
        kinds.pop(change.kind, None)
        if not kinds:
            self.files.pop(str(change.path), None)

    def made(self, dirs: list[Path]) -> None:
        """Directories install created (``~/.claude/skills``): uninstall removes them once they are empty."""
        self.dirs.update(str(d) for d in dirs if d.is_dir())

    def remove_empty_dirs(self) -> list[Path]:
        """The directories install created that are empty now, removed (the deepest first); those that hold
        anything stay, and stay listed."""
        removed = []
        for d in sorted(self.dirs, key=lambda s: s.count("/"), reverse=True):
            path = Path(d)
            try:
                path.rmdir()  # (only an empty directory goes; a missing one is forgotten)
            except FileNotFoundError:
                pass
            except OSError:
                continue
            else:
                removed.append(path)
            self.dirs.discard(d)
        return removed

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        doc = {"version": 1, "files": self.files, **({"dirs": sorted(self.dirs)} if self.dirs else {})}
        write_text(self.path, json.dumps(doc, indent=1) + "\n", mode=0o600)


def missing_dirs(path: Path) -> list[Path]:
    """The directories above ``path`` that do not exist yet (writing it will create them), the deepest first."""
    out = []
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        out.append(parent)
        parent = parent.parent
    return out


def created_by_us(ledger: Ledger | None, path: Path, kind: str) -> bool:
    entry = ledger.entry(path, kind) if ledger is not None else None
    return bool(entry and entry.get("created"))


def blank_before(ledger: Ledger | None, path: Path, kind: str) -> str | None:
    """What an empty (or blank) file held when install first wrote into it, or None."""
    entry = ledger.entry(path, kind) if ledger is not None else None
    blank = entry.get("blank") if entry else None
    return blank if isinstance(blank, str) and not blank.strip() else None


# -- Markdown: the marked block -------------------------------------------------------------

def block_span(text: str) -> tuple[int, int] | None:
    """Our block: the last begin marker at a line start before the first end marker after it (an
    orphaned begin marker above, left by a damaged block, never makes the span swallow the user's text)."""
    ends = [m.start() for m in re.finditer(re.escape(END), text)]
    for end in ends:
        begins = [m.start() for m in re.finditer(r"(?m)^" + re.escape(BEGIN), text[:end])]
        if begins:
            start = begins[-1]
            stop = end + len(END)
            nl = "\r\n" if text.startswith("\r\n", stop) else ("\n" if text.startswith("\n", stop) else "")
            return start, stop + len(nl)
    return None


def add_block(text: str, block: str) -> str:
    """``text`` with the marked block replaced in place, or appended after one line break."""
    nl = "\r\n" if "\r\n" in text else "\n"
    block = block.replace("\n", nl)
    span = block_span(text)
    if span:
        return text[:span[0]] + block + text[span[1]:]
    return text + (nl if text else "") + block


def cut_span(text: str, span: tuple[int, int] | None) -> str:
    """``text`` without ``span`` and the line break before it (what adding it put there)."""
    if not span:
        return text
    start, end = span
    if text[:start].endswith("\r\n") and "\r\n" in text[start:end]:  # (a file of lone CRs got a "\n" after its last)
        start -= 2
    elif start > 0 and text[start - 1] == "\n":
        start -= 1
    return text[:start] + text[end:]


def remove_block(text: str) -> str:
    """The inverse of ``add_block`` on a text that had no block."""
    return cut_span(text, block_span(text))


# -- a text file's part of ours (the Markdown block; Codex's table: ``install_toml``) ----------

def text_change(path: Path, what: str, kind: str, uninstall: bool, book: Ledger | None,
                add: Callable[[str], str], remove: Callable[[str], str]) -> Change:
    """Adding our part to a text file, or taking it out: a file install created for it goes with it."""
    before = read_or_none(path)
    if uninstall:
        after = None if before is None else remove(before)
        if after == "" and before and created_by_us(book, path, kind):
            after = None
    else:
        after = add(before or "")
    return Change(path, before, after, what, kind)


# -- writing --------------------------------------------------------------------------------

def apply(change: Change) -> None:
    """Write one planned change; ``Raced`` when the file no longer holds what it was planned from."""
    if not change.changed:
        return
    if change.after is None:
        still_as_read(change.path, change.before)
        # a settings file install created through a link (dotfiles): the link stays, its target goes; a skill (ours by
        # its mark, not by the record) linked in from elsewhere: the link goes, the file it points at stays
        linked = change.path.is_symlink() and change.kind != "skill"
        (change.path.resolve() if linked else change.path).unlink()
        if change.path.name == "SKILL.md":
            try:
                change.path.parent.rmdir()
            except OSError:
                pass
    else:
        private = change.path.suffix in (".json", ".toml")  # agents keep tokens in them
        write_text(change.path, change.after, mode=0o600 if private else None,
                   guard=lambda: still_as_read(change.path, change.before))


def apply_settled(change: Change, replan: Callable[[Path], Change], attempts: int = 3) -> Change:
    """Apply ``change``; while another program writes the file meanwhile, plan again from what it holds now."""
    for attempt in range(attempts):
        try:
            apply(change)
            return change
        except Raced:
            if attempt == attempts - 1:
                raise
            change = replan(change.path)
    return change


def remove_old_backup(path: Path) -> bool:
    """Delete the copy of ``path`` an older release kept beside it (it may hold tokens, readable by all)."""
    backup = path.with_name(path.name + OLD_BACKUP)
    if backup.is_file() and not backup.is_symlink():
        backup.unlink()
        return True
    return False
