"""Which tool calls touched a file, and how: read, edited, wrote, or ran a command on it. Pure.

A call names a file as its agent wrote it: absolute (``Read file_path: /home/dev/shop/tax.py``), or relative
to the session's working directory (``apply_patch *** Update File: payments/capture.py``, ``pytest
tests/test_tax.py``). A path asked for absolutely matches a call's path resolved against its session's
directory; a relative one matches any path that ends with it, whole components (``tax.py`` is not
``syntax.py``), in any project. Each session says which files it touched (``app/models.py`` for ``models.py``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import asdict, dataclass

FILES_KEPT = 20  # a session's files named, at most (a log can name thousands of paths of one file name)


@dataclass(frozen=True)
class FileTouches:
    """One line of ``files()``: a session whose tool calls touched a file, and what they did to it."""

    session_id: str
    agent: str | None
    project: str | None
    cwd: str | None
    title: str | None
    last_at: str | None  # the newest call that touched it
    actions: dict[str, int]  # wrote / edited / read / ran: how many calls did each
    record_id: str  # the newest such call (``show`` opens it in its conversation)
    files: tuple[str, ...] = ()  # which files, newest first: a relative path's match as a call names it (from cwd)
    files_more: int = 0  # distinct files named beyond ``files`` (which keeps the first ``FILES_KEPT``)

    def to_dict(self) -> dict:
        return asdict(self)


# How a call's tool name says what it did to the files it names (lower-cased; anything else: "ran").
READS = frozenset("read read_file readfile read_many_files view copilot_readfile notebookread open_file cat "
                  "view_file /add /read-only".split())  # (/add: Aider's command, the file into the chat)
EDITS = frozenset("edit multiedit replace edit_file editedexistingfile apply_patch str_replace_editor "
                  "str_replace_based_edit_tool notebookedit patch search_replace replace_in_file "
                  "copilot_replacestring insert_edit_into_file apply_diff".split())
WRITES = frozenset("write write_file create_file write_to_file newfilecreated create copilot_createfile".split())
ACTIONS = ("wrote", "edited", "read", "ran")  # in the order a session's summary names them
_NAMED = (("ran", frozenset("bash shell exec command terminal run".split())),
          ("wrote", frozenset("write create".split())),
          ("edited", frozenset("edit replace patch change insert".split())),
          ("read", frozenset("read view open search find grep glob identify show list".split())))
_ELSEWHERE = frozenset("todo todos web issue issues pr comment plan memory task tasks".split())
_NAME = "_-.~@+"  # characters a file name goes on with: "mymodels.py" is not "models.py", nor "models.pyc"


# A shell command that is Codex's patch tool run by name (``apply_patch '*** Begin Patch…'``, a heredoc to it)
_PATCH_COMMAND = re.compile(r"\s*(?:cd\s+[^\n;&|]+&&\s*)?apply_patch\b")


def action(tool_name: str | None, text: str | None = None) -> str:
    """What a call of ``tool_name`` (its record's ``text``) did to a file it names."""
    verb = _named_action(tool_name)
    return "edited" if verb == "ran" and text and _PATCH_COMMAND.match(text) else verb


def _named_action(tool_name: str | None) -> str:
    name = (tool_name or "").lower()
    name = name if name.startswith("/") else name.rsplit("__", 1)[-1].rsplit("/", 1)[-1]
    if name in WRITES:
        return "wrote"
    if name in EDITS:
        return "edited"
    if name in READS:
        return "read"
    # A tool of a harness not named above, by the words of its name (EditCode, RequestCodeChange, ViewCode); not
    # one whose words say it keeps something else (TodoWrite, WebSearch, create_issue).
    words = set(re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", tool_name or "").lower()))
    if not words & _ELSEWHERE:
        for verb, verbs in _NAMED:
            if words & verbs:
                return verb
    return "ran"


def _at(text: str, path: str, *, under: bool) -> int:
    """Where ``text`` holds ``path`` as a whole path, or -1: nothing of a longer name before or after it
    (``under``: a directory before it, ``…/app/models.py``, counts too)."""
    i = text.find(path)
    while i >= 0:
        before = text[i - 1] if i else " "
        end = i + len(path)
        after = text[end] if end < len(text) else " "
        whole_after = not (after.isalnum() or after in _NAME)
        if whole_after and not (before.isalnum() or before in _NAME or before == "/"):
            return i
        if whole_after and before == "/" and (under or text[max(0, i - 2):i] == "./"):
            return i
        i = text.find(path, i + 1)
    return -1


_BEFORE_A_PATH = frozenset(" \t\n\r\"'`=(<>,;|&")


def _whole(text: str, start: int, end: int, cwd: str | None) -> str:
    """The path that ends at ``end`` and holds ``text[start:end]``, from ``cwd`` when it lies inside it."""
    base = posixpath.normpath(cwd.replace("\\", "/")).rstrip("/") + "/" if cwd else None
    # (the cwd written out just before it: its spaces and quotes are the path's own)
    inside = text.rfind(base, 0, start + 1) if base and any(c in _BEFORE_A_PATH for c in base) else -1
    if base and inside >= 0 and not any(c in _BEFORE_A_PATH for c in text[inside + len(base):start]) and (
            inside == 0 or text[inside - 1] in _BEFORE_A_PATH):
        start = inside
    else:
        while start and text[start - 1] not in _BEFORE_A_PATH:
            start -= 1
    found = text[start:end]
    found = found[len(base):] if base and found.startswith(base) and len(found) > len(base) else found
    return found[2:] if found.startswith("./") else found


def touched(text: str, cwd: str | None, target: str) -> str | None:
    """The path by which a call's ``text`` names ``target`` (absolute: that file, or its path relative to the
    session's ``cwd``; relative: any path ending with it, whole components), or None. Paths may hold spaces
    and brackets."""
    target = posixpath.normpath(target.replace("\\", "/"))  # (a path on Windows: app\models.py)
    text = text.replace("\\", "/") if "\\" in text else text
    if not target.startswith("/"):
        at = _at(text, target, under=True)
        return None if at < 0 else _whole(text, at, at + len(target), cwd)
    base = posixpath.normpath(cwd).rstrip("/") + "/" if cwd else None
    inside = target[len(base):] if base and target.startswith(base) else None
    if _at(text, target, under=False) >= 0 or (inside and _at(text, inside, under=False) >= 0):
        return inside or target
    return None


def touches(text: str, cwd: str | None, target: str) -> bool:
    """Whether a call's ``text`` names ``target`` (``touched``)."""
    return touched(text, cwd, target) is not None


def summary(counts: dict[str, int]) -> str:
    """``edited 3×, read 2×``: what a session did to the file, most telling first."""
    return ", ".join(f"{a} {counts[a]}×" if counts[a] > 1 else a for a in ACTIONS if counts.get(a))
