"""Which parts of a shell script a shell runs: quoted text, comments and heredoc bodies are data, not commands.

Pure; the echo rules (``echo``) read a logged command through these before looking for backscroll in it. What a
command substitution runs (``"$(cat <<'EOF' … EOF)"``) is code again, inside double quotes too.
"""

from __future__ import annotations

import re

# A heredoc's opening: ``<<EOF``, ``<<-'EOF'``, ``<< "EOF"``, ``<<\EOF`` (not a here-string, ``<<<``).
_OPEN = re.compile(r"(?<!<)<<(?!<)-?[ \t]*(\\?)(['\"]?)([A-Za-z_][\w.-]*)\2")
# A program on the opening line that reads the heredoc as its script: bash, sh, /bin/zsh, ssh host …
_READER = re.compile(r"(?:^|[\s;&|(/])(?:(?:ba|z|da|k)?sh|ssh)(?=$|[\s;&|)])")
_ESCAPED = re.compile(r"\\.", re.S)
_MAX_HEREDOCS = 64


def masked(text: str, *, double: bool = False, keep_quoted: bool = False) -> str:
    """``text`` with what a shell reads as data blanked, one space for one character (the quotes themselves stay):
    comments, and unless ``keep_quoted`` what single quotes (``'…'``, ``$'…'``) hold and escaped characters, and
    with ``double`` what double quotes hold too, but for what a command substitution in them runs."""
    out = list(text)
    stack = ["code"]  # code (the top, or a command substitution's), or dq (in double quotes)
    depth = [0]  # open parentheses in each code context (its own ")" closes a substitution)
    i, n, word_start = 0, len(text), True

    def blank(a: int, b: int, always: bool = False) -> None:
        if always or not keep_quoted:
            out[a:b] = " " * (b - a)

    while i < n:
        ch, context = text[i], stack[-1]
        if ch == "\\":
            blank(i, min(i + 2, n))
            i, word_start = i + 2, False
            continue
        if context == "dq":
            if ch == '"':
                stack.pop()
                depth.pop()
            elif text.startswith("$(", i):
                stack.append("code")
                depth.append(0)
                i += 2
                word_start = True
                continue
            elif double and not keep_quoted:
                out[i] = " "
            i += 1
            continue
        if ch == "'":  # to the closing quote; in $'…' a backslash escapes it
            ansi, j = i > 0 and text[i - 1] == "$", i + 1
            while j < n and text[j] != "'":
                j += 2 if ansi and text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i, word_start = j + 1, False
            continue
        if ch == "#" and word_start:
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end, always=True)
            i = end
            continue
        if ch == '"':
            stack.append("dq")
            depth.append(0)
        elif text.startswith("$(", i):
            stack.append("code")
            depth.append(0)
            i += 2
            word_start = True
            continue
        elif ch == "(":
            depth[-1] += 1
        elif ch == ")":
            if depth[-1]:
                depth[-1] -= 1
            elif len(stack) > 1:
                stack.pop()
                depth.pop()
        word_start = ch in " \t\n;&|()"
        i += 1
    return "".join(out)


def without_heredoc_bodies(script: str) -> tuple[str, list[str]]:
    """``script`` without the bodies of its heredocs (and the lines that end them), but for one a program on its line
    reads as its script (``bash <<EOF``, ``cat <<EOF | sh``, ``ssh host <<EOF``); and the bodies taken out whose
    delimiter is not quoted (a shell runs the command substitutions in those). A ``<<`` in quotes, a comment or
    arithmetic (``$((1 << n))``) opens none."""
    bodies: list[str] = []
    mask, at = masked(script, double=True), 0
    for _ in range(_MAX_HEREDOCS):
        m = _OPEN.search(script, at)
        if m is None:
            break
        at = m.end()
        line_start = script.rfind("\n", 0, m.start()) + 1
        head = mask[line_start:m.start()]
        if mask[m.start():m.start() + 2] != "<<" or head.count("((") > head.count("))"):
            continue
        eol = script.find("\n", m.end())
        if eol < 0:
            break
        line = mask[line_start:m.start()] + " " + mask[m.end():eol]
        if _READER.search(line):
            continue  # (its body is read on as the script it is)
        end = re.compile(rf"^[ \t]*{re.escape(m.group(3))}[ \t]*\r?$", re.M).search(script, eol + 1)
        body_end, after = (end.start(), end.end()) if end else (len(script), len(script))
        if not (m.group(1) or m.group(2)):
            bodies.append(_ESCAPED.sub(lambda e: " " * len(e.group(0)), script[eol + 1:body_end]))
        script = script[:eol + 1] + script[after:]
        mask = masked(script, double=True)
    return script, bodies
