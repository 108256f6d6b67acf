"""The text helpers every session format shares: reading untrusted JSON values (``as_dict``, ``as_list``,
``as_str``, a text that may hold a JSON object: ``json_object``) and turning message and tool blocks into record
text (``clean_text``, ``render_input``, ``call_text``, ``block_text``), a session's title from its first words
(``title_line``), a text file's bytes as text (``decoded``) the time of a message a format keeps no time
for (``first_seen``, ``time_of``), zstd's bytes (``zstd_decompress``, ``NO_CODEC``), a failed exit (``failed_exit``),
records an id repeats (``first_of_each_id``), a JSONL file read whole (``json_lines``) and an agent's index of its
sessions beside them (``index_beside``).
Re-exported by ``backscroll.ingest.sources``."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from backscroll.ingest.sources import jsontext
from backscroll.ingest.sources.jsontext import dumps
from backscroll.sanitize import within
from backscroll.types import TITLE_CHARS


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (parsers read untrusted JSON)."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: object, default: str = "") -> str:
    """``value`` when it is a JSON string, else ``default``."""
    return value if isinstance(value, str) else default


# Blocks agents inject into user turns that are not what the person wrote.
_INJECTED_BLOCK = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|local-command-caveat|user-prompt-submit-hook)>.*?</\1>",
    re.DOTALL,
)


def clean_text(text: str) -> str:
    """Drop injected reminder/command blocks and surrounding blank space."""
    if "<" in text:
        text = _INJECTED_BLOCK.sub("", text)
    return text.strip()


def decoded(raw: bytes) -> str:
    """A text file's bytes as text: UTF-16 when it starts with that byte-order mark and goes on in it (as Windows
    tools write), else UTF-8 without a byte-order mark (a UTF-16 one before UTF-8 text, and its NULs, dropped: a
    shell wrote the first line); bytes that do not decode are replaced."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        sample = raw[2:514]
        if sample.count(0) * 4 >= len(sample):  # (UTF-16 text: about every other byte is NUL)
            return raw.decode("utf-16", "replace")
        return raw[2:].decode("utf-8", "replace").replace("\x00", "")
    return raw.decode("utf-8-sig", "replace")


_MARKUP = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")  # a tag: <pre>, </instructions>, <br/>


def title_line(text: str) -> str | None:
    """A session's title from a message: its first line that says something, cut at a word within ``TITLE_CHARS``
    (with …). A line of markup alone (``<pre>``, ``</instructions>``), a code fence, a rule or a lone letter or
    digit (an answer: ``y``, ``4``) says nothing; None when no line does."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(("```", "~~~")) or len(re.findall(r"[^\W_]", _MARKUP.sub("", line))) < 2:
            continue
        return within(line, TITLE_CHARS)
    return None


def render_input(value: object) -> str:
    """A tool input as readable ``key: value`` lines (strings verbatim, others as compact JSON; nesting
    too deep to encode is cut at ``jsontext.MAX_DEPTH`` levels)."""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            parts.append(f"{k}: {v if isinstance(v, str) else dumps(v)}")
        return "\n".join(parts)
    if isinstance(value, str):
        return value
    return dumps(value)


def call_text(name: str, args: object, shell_tools: frozenset[str] | set[str]) -> tuple[str, str | None]:
    """A tool call as record text, and its command line when it ran one: a call to one of
    ``shell_tools`` with a ``command`` is that command; any other call is its name and its arguments
    (``args`` may be a JSON string, as OpenAI-style function calls give them)."""
    if isinstance(args, str):
        try:
            args = jsontext.loads(args)
        except orjson.JSONDecodeError:
            pass
    command = args.get("command") if name in shell_tools and isinstance(args, dict) else None
    if isinstance(command, str) and command.strip():
        return command, command
    return (f"{name}\n{render_input(args)}" if args not in (None, {}, "") else name), None


def json_object(text: object) -> dict | None:
    """The JSON object ``text`` holds (a tool's structured result written as text), else None."""
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    try:
        obj = jsontext.loads(text)
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def block_text(content: object) -> str:
    """Text of a tool result: a string, or the text blocks of a list joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for block in content:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    out.append(block["text"])
                elif block.get("type") == "image":
                    out.append("[image]")
        return "\n".join(out)
    if content is None:
        return ""
    return render_input(content)


def first_seen(runs: object, count: int, created: str | None, updated: str | None) -> list[list]:
    """When each of a conversation's ``count`` messages was first seen, as runs ``[[end, time], …]`` (messages
    before ``end`` and after the run before it), for formats that keep no time per message (Zed, Continue, Vibe 2): a
    message keeps the time of the save that first held it, and a conversation first read dates its first message
    by its creation and the rest by its last save. Pure."""
    kept = [r for r in (runs if isinstance(runs, list) else []) if isinstance(r, list) and len(r) == 2
            and isinstance(r[0], int) and 0 < r[0] <= count]
    if not kept and created and count > 1:
        kept = [[1, created]]
    if count > (kept[-1][0] if kept else 0):
        kept.append([count, updated])
    return kept


def time_of(runs: list[list], n: int) -> str | None:
    """The time ``first_seen``'s runs give message ``n`` (from 1)."""
    return next((t for end, t in runs if n <= end), None)


NO_CODEC = "compressed with zstd and no zstd codec is installed (pip install zstandard)"


def zstd_decompress(data: bytes) -> bytes | None:
    """The bytes of a zstd frame (with or without its size in the header), or None when no codec is installed:
    Python 3.14's ``compression.zstd``, else the ``zstandard`` or ``pyzstd`` package, imported on first use."""
    try:
        from compression import zstd  # Python 3.14+

        return zstd.decompress(data)
    except ImportError:
        pass
    try:
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    except ImportError:
        pass
    try:
        import pyzstd

        return pyzstd.decompress(data)
    except ImportError:
        return None


def failed_exit(code: object) -> bool:
    """Whether a command's exit code (a number, or a number written as text) says it failed."""
    if isinstance(code, str) and code.strip().lstrip("-").isdigit():
        code = int(code)
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


def first_of_each_id(records: list) -> list:
    """``records`` with an id given twice (a node or an entry repeated) kept once, the first, in order."""
    kept: dict = {}
    for rec in records:
        kept.setdefault(rec.record_id, rec)
    return list(kept.values())


def json_lines(data: bytes, keeps: Callable[[dict], bool], what: str) -> tuple[list[tuple[int, dict]],
                                                                                 list[tuple[int, str]]]:
    """The objects of a JSONL file read whole that ``keeps`` accepts, numbered from 1, and the lines skipped (not
    JSON, or not ``what``). A last line without its newline is still being written: it is left for the next read."""
    from backscroll.ingest.sources.jsontext import loads

    lines: list[tuple[int, dict]] = []
    skipped: list[tuple[int, str]] = []
    for n, raw in enumerate(data.splitlines(keepends=True), 1):
        try:
            obj = loads(raw)
        except ValueError:
            if raw.endswith(b"\n"):
                skipped.append((n, "not JSON"))
            continue
        if isinstance(obj, dict) and keeps(obj):
            lines.append((n, obj))
        else:
            skipped.append((n, f"not {what}"))
    return lines, skipped


_BUILT: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}  # (index, builder) -> (its size and mtime, built)


def index_beside(path: Path, build: Callable[[Any], Any], limit: int = 64 * 1024 * 1024) -> Any:
    """``build`` of the JSON file at ``path`` (an agent's index of its sessions, asked once for every session file
    beside it), read and built once per state of the file; None when it is missing or not JSON."""
    from backscroll.ingest.sources import read_regular
    from backscroll.ingest.sources.jsontext import loads

    try:
        st = os.stat(path)
        key, state = (str(path), build.__qualname__), (st.st_size, st.st_mtime_ns)
        if _BUILT.get(key, (None,))[0] != state:
            if len(_BUILT) > 16:  # (indexes are read folder by folder: a few at a time)
                _BUILT.clear()
            _BUILT[key] = (state, build(loads(read_regular(path, limit)) if st.st_size else None))
    except (OSError, ValueError):
        return None
    return _BUILT[key][1]
