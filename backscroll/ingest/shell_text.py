"""Which parts of a shell script a shell runs: quoted text, comments and heredoc bodies are data, not commands.

Pure; the echo rules (``echo``) read a logged command through these before looking for backscroll in it. What a
command substitution runs (``"$(cat <<'EOF' … EOF)"``) is code again, inside double quotes too.
"""

from __future__ import annotations

import re

# A heredoc's opening: ``<<EOF``, ``<<-'EOF'``, ``<< "EOF"``, ``<<\EOF``, ``<<E'O'F`` (not a here-string, ``<<<``).
_OPEN = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*((?:\\?[\w.-]|'[^'\n]*'|\"[^\"\n]*\")+)")
# A program on the opening line that reads the heredoc as its script: bash, sh, /bin/zsh, ssh host …
_READER = re.compile(r"(?:^|[\s;&|(/])(?:(?:ba|z|da|k)?sh|ssh)(?=$|[\s;&|)])")
_ESCAPED = re.compile(r"\\.", re.S)
_MAX_HEREDOCS = 16  # (and functions: each read again from the start, so a script of many stops being read for them)
_PIPELINE_END = re.compile(r"&&|\|\||[;&\n]")


def masked(text: str, *, double: bool = False, keep_quoted: bool = False) -> str:
    """``text`` with what a shell reads as data blanked, one space for one character (the quotes themselves stay):
    comments, and unless ``keep_quoted`` what single quotes (``'…'``, ``$'…'``) hold and escaped characters, and
    with ``double`` what double quotes hold too, but for what a command substitution in them runs."""
    out = list(text)
    stack = ["code"]  # code (the top, or a command substitution's), or dq (in double quotes)
    depth = [0]  # open parentheses in each code context (its own ")" closes a substitution)
    i, n, word_start, in_backquotes = 0, len(text), True, False

    def blank(a: int, b: int, always: bool = False) -> None:
        if always or not keep_quoted:
            out[a:b] = " " * (b - a)

    while i < n:
        ch, context = text[i], stack[-1]
        if ch == "\\":
            blank(i, min(i + 2, n))
            i, word_start = i + 2, False
            continue
        if text.startswith("$(", i):  # (what a command substitution runs is code, in double quotes too)
            stack.append("code")
            depth.append(0)
            i, word_start = i + 2, True
            continue
        if context == "dq":
            if ch == '"':
                stack.pop()
                depth.pop()
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
            if in_backquotes and 0 <= text.find("`", i, end):  # (a comment in backquotes ends at the closing one)
                end = text.find("`", i, end)
            blank(i, end, always=True)
            i = end
            continue
        if text.startswith("${", i):  # (a parameter's expansion: its # and spaces are no comment)
            end = text.find("}", i)
            i, word_start = (n if end < 0 else end + 1), False
            continue
        if ch == '"':
            stack.append("dq")
            depth.append(0)
        elif ch == "(":
            depth[-1] += 1
        elif ch == ")":
            if depth[-1]:
                depth[-1] -= 1
            elif len(stack) > 1:
                stack.pop()
                depth.pop()
        elif ch == "`":
            in_backquotes = not in_backquotes
        word_start = ch in " \t\n;&|()`"
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
        arithmetic = head.count("((") > head.count("))") or head.count("$[") > head.count("]")
        if mask[m.start():m.start() + 2] != "<<" or arithmetic:
            continue
        eol = script.find("\n", m.end())
        if eol < 0:
            break
        starts = [e.end() for e in _PIPELINE_END.finditer(mask, line_start, m.start())]
        ends = _PIPELINE_END.search(mask, m.end(), eol)
        if _READER.search(mask[starts[-1] if starts else line_start:m.start()] + " "
                          + mask[m.end():ends.start() if ends else eol]):
            continue  # (a program of its pipeline reads the body as its script)
        word = m.group(2)
        delimiter = re.sub(r"['\"\\]", "", word)
        tabs = r"\t*" if m.group(1) else ""  # (``<<-`` ends at a line of tabs and the word; ``<<`` at the word alone)
        end = re.compile(rf"^{tabs}{re.escape(delimiter)}(?:\r?$|(?=\)))", re.M).search(script, eol + 1)
        body_end, after = (end.start(), end.end()) if end else (len(script), len(script))
        if word == delimiter:  # (unquoted: the shell runs the body's substitutions)
            bodies.append(_ESCAPED.sub(lambda e: " " * len(e.group(0)), script[eol + 1:body_end]))
        script = script[:eol + 1] + script[after:]
        mask = masked(script, double=True)
    return script, bodies


_FUNCTION = re.compile(r"(?:^|(?<=[\s;&|(]))(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{"
                       r"|\bfunction\s+([A-Za-z_][\w-]*)\s*\{")  # ``name() {`` or ``function name {``


def without_uncalled_functions(script: str) -> str:
    """``script`` without the bodies of the functions it defines and never calls (defining one runs nothing)."""
    mask = masked(script)
    for m in reversed(list(_FUNCTION.finditer(mask))[:_MAX_HEREDOCS]):  # (as many as heredocs are read for)
        name, depth, end = m.group(1) or m.group(2), 1, m.end()
        while end < len(mask) and depth:
            depth += {"{": 1, "}": -1}.get(mask[end], 0)
            end += 1
        rest = mask[:m.start()] + " " + mask[end:]
        if not re.search(rf"(?:^|[\s;&|(`]){re.escape(name)}(?=$|[\s;&|)`])", rest, re.M):
            script = script[:m.start()] + " " * (end - m.start()) + script[end:]
    return script

