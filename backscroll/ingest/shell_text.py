"""Which parts of a shell script a shell runs: quoted text, comments and heredoc bodies are data, not commands.

Pure; the echo rules (``echo``) read a logged command through these before looking for backscroll in it.
"""

from __future__ import annotations

import re

# A heredoc: its opening line (``cat <<'EOF' >> AGENTS.md``), then its body up to the line that ends it.
_HEREDOC = re.compile(r"(?<!<)<<(?!<)-?[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\1[^\n]*\n(.*?)(?:^[ \t]*\2[ \t]*$|\Z)",
                      re.S | re.M)
_SHELL_WORD = re.compile(r"(?:^|[\s;&|(/])(?:ba|z|da|k)?sh(?=$|[\s;&|)])")  # bash, sh, /bin/zsh … on a line
_MAX_HEREDOCS = 32


def masked(text: str, *, double: bool = False) -> str:
    """``text`` with what a shell reads as data blanked, one space for one character: what single quotes hold,
    escaped characters and comments (and, with ``double``, what double quotes hold too). The quotes stay."""
    out: list[str] = []
    single = in_double = escaped = comment = False
    before = "\n"
    for ch in text:
        if comment:
            comment = ch != "\n"
            out.append(ch if not comment else " ")
        elif single:
            single = ch != "'"
            out.append(ch if not single else " ")
        elif escaped:
            escaped = False
            out.append(" ")
        elif ch == "\\":
            escaped = True
            out.append(" ")
        elif ch == '"':
            in_double = not in_double
            out.append(ch)
        elif in_double:
            out.append(" " if double else ch)
        elif ch == "'":
            single = True
            out.append(ch)
        elif ch == "#" and before in " \t\n;&|(":
            comment = True
            out.append(" ")
        else:
            out.append(ch)
        before = ch
    return "".join(out)


def without_heredoc_bodies(script: str) -> str:
    """``script`` without the bodies of its heredocs (and the lines that end them), but for one a shell reads as its
    script (``bash <<EOF``, ``cat <<EOF | sh``, ``ssh host bash <<EOF``). A ``<<`` in quotes or a comment opens none."""
    at = 0
    for _ in range(_MAX_HEREDOCS):
        m = _HEREDOC.search(script, at)
        if m is None:
            return script
        at = m.start(3)
        if masked(script[:m.start() + 2], double=True)[m.start():] != "<<":
            at = m.start() + 2  # (quoted or commented: not a heredoc)
            continue
        line = script[script.rfind("\n", 0, m.start()) + 1:m.start(3)]
        if not _SHELL_WORD.search(line.replace(m.group(2), " ")):
            script = script[:m.start(3)] + script[m.end():]
    return script
