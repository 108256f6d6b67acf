"""Codex's ``config.toml``: our ``[mcp_servers.backscroll]`` table, carrying a marker comment, added and taken out
as text (``install_files.text_change``), so that every byte of the user's stays as it was (CRLF line ends too)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from backscroll.errors import UsageError
from backscroll.integrations.install_files import Change, Ledger, cut_span, text_change

CODEX_MARK = "# added by `backscroll install mcp`; `backscroll install mcp --uninstall` removes it"


def codex_table(command: str) -> str:
    return (f'[mcp_servers.backscroll]\n{CODEX_MARK}\n'
            f'command = {json.dumps(command)}\nargs = ["mcp"]\nstartup_timeout_sec = 30\n')


_TABLE_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(#[^\r\n]*)?\r?$", re.M)  # (CRLF too)


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
            if CODEX_MARK not in text[m.start():end]:
                continue  # (the user's own table, or the words inside a string: ours may come later)
            # Our table ends with a key: blank lines and comments after it are the user's (about what follows).
            lines = text[m.start():end].splitlines(keepends=True)
            while len(lines) > 1 and CODEX_MARK not in lines[-1] and (
                    not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
                lines.pop()
            return m.start(), m.start() + sum(map(len, lines))
    return None


def codex_changed(text: str) -> bool:
    """Whether our marked table holds what install did not write (a key, a value or a comment of the user's): then it
    is theirs too, and neither a reinstall nor uninstall touches it."""
    span = codex_span(text)
    if span is None:
        return False
    table = text[span[0]:span[1]].replace("\r\n", "\n")
    import tomllib

    try:
        command = tomllib.loads(table)["mcp_servers"]["backscroll"]["command"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        return True
    return not isinstance(command, str) or table != codex_table(command)


def codex_has_foreign(text: str) -> bool:
    """Whether the file has a ``backscroll`` MCP server install did not write, in any spelling (``[mcp_servers.
    "backscroll"]``, an inline table); text inside a string that looks like one is not a table."""
    if "backscroll" not in text or codex_span(text) is not None:
        return False
    import tomllib

    try:
        servers = tomllib.loads(text).get("mcp_servers")
    except tomllib.TOMLDecodeError:  # (unreadable: a table that looks like one is taken to be there, and left alone)
        return bool(re.search(r"^\s*\[\s*mcp_servers\s*\.\s*\"?backscroll\"?\s*\]", text, re.M))
    return isinstance(servers, dict) and "backscroll" in servers


def codex_add(text: str, command: str) -> str:
    nl = "\r\n" if "\r\n" in text else "\n"  # (the file's own line ends)
    span = codex_span(text)
    if span and codex_changed(text):
        return text
    if span:
        return text[:span[0]] + codex_table(command).replace("\n", nl) + text[span[1]:]
    if codex_has_foreign(text):
        return text
    new = text + (nl if text else "") + codex_table(command).replace("\n", nl)
    import tomllib

    try:
        tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"adding [mcp_servers.backscroll] would not be valid TOML ({exc}); nothing was changed",
                         hint=f"add a [mcp_servers.backscroll] table by hand: command = {json.dumps(command)}, "
                              'args = ["mcp"]') from None
    return new


def codex_remove(text: str) -> str:
    return text if codex_changed(text) else cut_span(text, codex_span(text))


def codex_change(path: Path, uninstall: bool, book: Ledger | None, program: str) -> Change:
    return text_change(path, "mcp (codex)", "mcp", uninstall, book, lambda text: codex_add(text, program),
                       codex_remove)
