"""Query-echo detection: is this tool call backscroll retrieving history?

Pure and deterministic (docs/architecture.md, "Echo rules"). A shell command is split into simple commands at ``;``
``&&`` ``||`` ``|`` ``&`` and newlines; ``bash -c``/``-lc`` strings and argv arrays are unwrapped (a shell's ``-o
pipefail`` before ``-c`` too), and so are ``eval``'s arguments and command or process substitutions (``"$(backscroll
search …)"``, ``<(…)``); leading ``NAME=value`` assignments and wrappers (env, command, exec, nohup, time, nice,
timeout, sudo, uvx, pipx run, uv run, poetry run, python -m, xargs) and shell keywords (``do``, ``then``, ``{`` …)
are dropped; ``watch``'s command is read as a script, and so is what ``echo`` pipes into a shell; ``$(which
backscroll)`` and its backquoted form stand for the program. A heredoc's body is data unless a shell reads it, and
nothing in single quotes (or escaped) is substituted. The call is an echo when the program is backscroll and its
subcommand retrieves history (``search``, ``show``; not ``--help``). Quoting errors never raise: the command is then
split on whitespace. A tool's output that is what ``search`` or ``show`` printed is an echo too (``echo_output``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

from backscroll.ingest.shell_text import masked, without_heredoc_bodies, without_uncalled_functions

# Bump when the rules change: stores classified by an older version are classified again on sync.
VERSION = 8  # 2: MCP calls and recall blocks; 3: loops, xargs, watch and $(which backscroll);
# 4: --color before the command, MCP names of Cline (mcp:backscroll/…) and Codex paginated threads;
# 5: a shell's -o/-O option before -c, command and process substitution, eval, an MCP server named in capitals;
# 6: a tool output that is backscroll's search or show output, whatever ran it; line breaks after && ; | (,
# echo '…' | bash, version pins (uvx backscroll@latest), OpenCode's, Zed's and Copilot CLI's MCP names; not an echo:
# a heredoc's body, backquotes in single quotes or escaped, --help; 7: the output shapes of `search --by-session -f
# tsv` (a row per session) and of `show` holding one record ("record 5 of 19"); 8: ``coproc``, and a variable the
# script set to the program (``b=backscroll; $b search …``)
RETRIEVAL_SUBCOMMANDS = frozenset({"search", "show"})
PROGRAM = "backscroll"

_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "\n", "|&", ";;", "(", ")", ";&", ";;&"})
_PUNCT = ";&|()\n<>"
_BREAKS = frozenset(";&|()\n")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
# Global options of backscroll that take a value (skipped before the subcommand).
_GLOBAL_VALUE_OPTIONS = frozenset({"--home", "--color"})  # backscroll's options that take a value
_MAX_DEPTH = 4
# Words that may start a simple command inside a compound one (``for …; do backscroll search $q; done``).
_KEYWORDS = frozenset({"do", "then", "else", "elif", "if", "while", "until", "{", "!"})
_XARGS_VALUE_OPTIONS = frozenset({"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--arg-file",
                                  "--delimiter", "--max-args", "--max-procs", "--max-lines", "--max-chars",
                                  "--replace", "--eof"})
_WATCH_VALUE_OPTIONS = frozenset({"-n", "--interval", "-q", "--equexit"})
_SUDO_VALUE_OPTIONS = frozenset({"-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t", "-U"})
_UVX_VALUE_OPTIONS = frozenset({"--from", "--with", "--python", "-p", "--index-url", "--with-requirements"})
_RUNNERS = frozenset({"pipx", "uv", "poetry", "pdm", "hatch", "rye"})  # ``<runner> run|tool ...``
_RUNNER_VALUE_OPTIONS = frozenset({"--spec", "--python", "--with", "--from", "-p", "--project", "--directory"})
# A command or process substitution that runs the program (``"$(backscroll search …)"``, ``<(…)``, backquotes).
_SUBSTITUTION = re.compile(r"[$<>]\(([^()]*+)\)|`([^`]*+)`")  # (each run to its end: linear on any text)
_SHELL_VALUE_FLAGS = frozenset("oO")  # ``bash -o pipefail -c …``, ``-euo pipefail``, ``-O extglob``
# ``$(which backscroll)``, ``$(command -v backscroll)``, ```which backscroll``` in the program's place.
_WHICH = re.compile(r"\$\(\s*(?:which|command\s+-v|type\s+-[pP])\s+(?P<a>[\w./-]*backscroll)\s*\)"
                    r"|`\s*(?:which|command\s+-v|type\s+-[pP])\s+(?P<b>[\w./-]*backscroll)\s*`")


# ``echo 'backscroll search …' | bash``: the echoed words are the script.
_PIPED_SCRIPT = re.compile(r"\b(echo|printf)\s+(-[neE]+\s+)?(?:'([^'\n]*+)'|\"((?:[^\"\\\n]|\\.)*+)\")\s*\|\s*"
                           r"(?:\S*/)?(?:ba|z|da|k)?sh(?=$|[\s;&|)])")
_COMMENT_START = re.compile(r"(?:^|[\s;&|(`])#")  # (a # that may start a comment: at a word's start)
_CONTINUED = re.compile(r"\\\r?\n")  # a line ended with a backslash goes on on the next
_DOUBLE_QUOTED_ESCAPE = re.compile(r"\\([\\\"$`])")
_VARIABLE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")  # ``$b``, ``${b}``
_PROGRAM_NAME = re.compile(r"backscroll(?:\.exe)?(?:(?:@|==|>=|~=)\S*)?")  # (``uvx backscroll@latest``)


def _tokens(script: str) -> list[str]:
    if PROGRAM in script:
        script = _WHICH.sub(lambda m: m.group("a") or m.group("b"), script)
    lexer = shlex.shlex(script, posix=True, punctuation_chars=_PUNCT)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""  # (comments are blanked before: ``shell_text.masked``)
    try:
        return list(lexer)
    except ValueError:
        # Unbalanced quotes: fall back to whitespace splitting, keeping operators apart.
        return re.findall(r"&&|\|\||[;&|\n()]|[^\s;&|()]+", script)


def split_commands(script: str) -> list[list[str]]:
    """Split a shell script into simple commands (argv lists), dropping redirections."""
    commands: list[list[str]] = []
    current: list[str] = []
    skip_next = False
    for tok in _tokens(script):
        if skip_next:
            skip_next = False
            continue
        if tok in _SEPARATORS or (tok and set(tok) <= _BREAKS):  # (``&&`` and a line break read as one token)
            if current:
                commands.append(current)
            current = []
        elif tok and set(tok) <= set(_PUNCT):  # a redirection: >, >>, <, >&, <<, &>
            if current and current[-1].isdigit():
                current.pop()
            skip_next = True  # and its target
        else:
            current.append(tok)
    if current:
        commands.append(current)
    return commands


def _skip_options(argv: list[str], i: int, with_value: frozenset[str] = frozenset()) -> int:
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        if argv[i] == "--":
            return i + 1
        i += 2 if argv[i] in with_value else 1
    return i


def _strip_wrappers(argv: list[str]) -> list[str]:
    """Drop assignments and wrapper programs in front of the real program."""
    i = 0
    while i < len(argv):
        word = argv[i]
        name = PurePosixPath(word).name
        if (_ASSIGNMENT.match(word) and not _PROGRAM_NAME.fullmatch(word)) or word in _KEYWORDS:  # (``backscroll==1``)
            i += 1
        elif word == "function" and i + 2 < len(argv) and argv[i + 2] == "{":  # (``function f { …; }``: its body)
            i += 3
        elif name == "xargs":
            i = _skip_options(argv, i + 1, _XARGS_VALUE_OPTIONS)
        elif name == "env":
            i += 1
            while i < len(argv) and (argv[i].startswith("-") or _ASSIGNMENT.match(argv[i])):
                i += 2 if argv[i] in ("-u", "--unset", "-C", "--chdir", "-S", "--split-string") else 1
        elif word == "coproc":  # (``coproc NAME { …; }`` names the coprocess; ``coproc cmd`` runs cmd)
            i += 3 if i + 2 < len(argv) and argv[i + 2] == "{" else 1
        elif name in ("command", "exec", "nohup", "builtin", "noglob", "stdbuf"):
            i = _skip_options(argv, i + 1)
        elif name == "time":
            i = _skip_options(argv, i + 1, frozenset({"-f", "--format", "-o", "--output"}))
        elif name == "nice":
            i = _skip_options(argv, i + 1, frozenset({"-n", "--adjustment"}))
        elif name == "timeout":
            i = _skip_options(argv, i + 1, frozenset({"-s", "--signal", "-k", "--kill-after"}))
            i += 1  # the duration
        elif name == "sudo":
            i = _skip_options(argv, i + 1, _SUDO_VALUE_OPTIONS)
        elif name == "uvx":
            i = _skip_options(argv, i + 1, _UVX_VALUE_OPTIONS)
        elif name in _RUNNERS and i + 1 < len(argv) and argv[i + 1] in ("run", "tool"):
            i += 2
            if name == "uv" and i < len(argv) and argv[i] == "run" and argv[i - 1] == "tool":
                i += 1  # uv tool run
            i = _skip_options(argv, i, _RUNNER_VALUE_OPTIONS)
        else:
            break
    return argv[i:]


def _backscroll_args(argv: list[str]) -> list[str] | None:
    """The arguments after the program when ``argv`` runs backscroll, else None."""
    if not argv:
        return None
    name = PurePosixPath(argv[0]).name
    if _PROGRAM_NAME.fullmatch(name):
        return argv[1:]
    if _PYTHON.match(name) and len(argv) >= 3 and argv[1] == "-m" and argv[2] in (PROGRAM, f"{PROGRAM}.cli"):
        return argv[3:]
    return None


def _note_programs(argv: list[str], programs: set[str]) -> None:
    """Keep in ``programs`` the variables a command of assignments alone (``export`` too) sets to the program."""
    words = argv[1:] if argv and argv[0] in ("export", "readonly", "declare", "typeset", "local") else argv
    if not words or not all(_ASSIGNMENT.match(w) for w in words):
        return
    for word in words:
        name, _, value = word.partition("=")
        (programs.add if _PROGRAM_NAME.fullmatch(PurePosixPath(value).name) else programs.discard)(name)


def _reads_stdin(command: str, at: int) -> bool:
    """Whether the shell named just before ``at`` runs its standard input: options only, no ``-c``, ``-n`` or file."""
    rest = split_commands(command[at:])
    argv = rest[0] if rest and command[at:at + 1] not in "\n;&|" else []
    for i, word in enumerate(argv):
        if not word.startswith("-") and not (i and argv[i - 1][:1] in "-+" and argv[i - 1][-1] in "oO"):
            return False
        if word.startswith("-") and not word.startswith("--") and set(word[1:]) & {"c", "n"}:
            return False
    return True


def _echoed(m: re.Match) -> str:
    """What ``echo '…' | bash`` gives the shell: the argument unquoted (``-e`` and printf read ``\\n``)."""
    text = m.group(3) if m.group(3) is not None else _DOUBLE_QUOTED_ESCAPE.sub(r"\1", m.group(4))
    return text.replace("\\n", "\n") if m.group(1) == "printf" or "e" in (m.group(2) or "") else text


def retrieval_calls(command: str | list | None, _depth: int = 0) -> list[list[str]]:
    """Every backscroll retrieval in ``command``, each as its arguments starting at the subcommand."""
    if command is None or _depth > _MAX_DEPTH:
        return []
    found: list[list[str]] = []
    if isinstance(command, list):
        simple = [[str(a) for a in command]]
    elif isinstance(command, str):
        if PROGRAM in command:  # (``$(which backscroll)`` stands for the program, in a substitution too)
            command = _WHICH.sub(lambda m: m.group("a") or m.group("b"), command)
        command, bodies = without_heredoc_bodies(command) if "<<" in command else (command, [])
        command = without_uncalled_functions(command) if "()" in command or "function" in command else command
        # (comments out, lines joined; the masks are read only where a command could hold what they tell apart)
        commented = _COMMENT_START.search(command) is not None
        simple = split_commands(_CONTINUED.sub(" ", masked(command, keep_quoted=True) if commented else command))
        substituted, piped = "(" in command or "`" in command, "|" in command and _PIPED_SCRIPT.search(command)
        if PROGRAM in command and (substituted or piped):  # (a substitution's or a piped echo's run)
            code, words = masked(command), masked(command, double=True)
            for m in (*_SUBSTITUTION.finditer(code), *_SUBSTITUTION.finditer(words)) if substituted else ():
                ran = command[slice(*m.span(1 if m.group(1) is not None else 2))]  # (words: "(q)" in one)
                found.extend(retrieval_calls(ran, _depth + 1) if PROGRAM in ran else ())
            for m in _PIPED_SCRIPT.finditer(command) if piped else ():
                if words[m.start()] != " " and _reads_stdin(command, m.end()):  # (an echo in quotes runs nothing)
                    found.extend(retrieval_calls(_echoed(m), _depth + 1))
        for body in bodies:  # (an unquoted heredoc's body: its substitutions run)
            for m in _SUBSTITUTION.finditer(body) if PROGRAM in body else ():
                ran = m.group(1) if m.group(1) is not None else m.group(2)
                found.extend(retrieval_calls(ran, _depth + 1) if PROGRAM in ran else ())
    else:
        return []
    programs: set[str] = set()  # variables the script set to the program (``b=backscroll; $b search …``)
    for argv in simple:
        _note_programs(argv, programs)
        argv = _strip_wrappers(argv)
        if not argv:
            continue
        if programs and (var := _VARIABLE.fullmatch(argv[0])) and (var.group(1) or var.group(2)) in programs:
            argv = [PROGRAM, *argv[1:]]
        name = PurePosixPath(argv[0]).name
        if name == "watch":  # watch runs its arguments, joined, with sh -c
            rest = argv[_skip_options(argv, 1, _WATCH_VALUE_OPTIONS):]
            if rest:
                found.extend(retrieval_calls(" ".join(rest), _depth + 1))
            continue
        if name == "eval":  # eval runs its arguments, joined, as a script
            found.extend(retrieval_calls(" ".join(argv[1:]), _depth + 1))
            continue
        if name in _SHELLS:
            j = 1
            while j < len(argv) and argv[j][:1] in "-+":
                flags = argv[j][1:] if not argv[j].startswith("--") else ""
                if "c" in flags and j + 1 < len(argv):
                    found.extend(retrieval_calls(argv[j + 1], _depth + 1))
                    break
                j += 2 if set(flags) & _SHELL_VALUE_FLAGS else 1
            continue
        args = _backscroll_args(argv)
        if args is None:
            continue
        j = _skip_options(args, 0, _GLOBAL_VALUE_OPTIONS)
        options = args[j:args.index("--")] if "--" in args[j:] else args[j:]
        if j < len(args) and args[j] in RETRIEVAL_SUBCOMMANDS and not {"--help", "-h"} & set(options):
            found.append(args[j:])
    return [list(call) for call in dict.fromkeys(map(tuple, found))]  # (a substitution's call is found twice)


def __getattr__(name: str) -> frozenset[str]:
    """``SHELL_TOOLS``: every agent's shell tool names, from the agent registry (each source module
    declares its own; nothing is listed here). Ingest keeps per call whether it ran a shell command."""
    if name == "SHELL_TOOLS":
        from backscroll.ingest.sources import shell_tool_names

        return shell_tool_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_query_echo(command: str | list | None) -> bool:
    """True when the shell command runs ``backscroll search`` or ``backscroll show``."""
    return bool(retrieval_calls(command))


# MCP calls to backscroll's own server: Claude ``mcp__backscroll__search`` (plugin servers:
# ``mcp__plugin_backscroll_backscroll__search``), Codex ``mcp__backscroll__search`` (namespace joined
# to the name by the source) and the older ``backscroll__search``, Gemini ``mcp_backscroll_search``,
# Codex paginated threads ``backscroll.search``, Cline, Roo and Kilo ``mcp:backscroll/search``, OpenCode and Zed
# ``backscroll_search``, Copilot CLI ``backscroll-search``.
MCP_TOOLS = frozenset({"search", "show", "list_sessions"})
_MCP_ECHO = re.compile(r"^(?i:mcp__(?:plugin_[A-Za-z0-9-]+_)?backscroll__|backscroll__|mcp_backscroll_|backscroll\.|"
                       r"mcp:backscroll/|backscroll_|backscroll-)(?P<tool>[A-Za-z_]+)$")


def mcp_tool(tool_name: str | None) -> str | None:
    """The backscroll MCP tool (``search``, ``show``, …) a tool name calls, else None."""
    if not tool_name:
        return None
    m = _MCP_ECHO.match(tool_name)
    return m.group("tool") if m and m.group("tool") in MCP_TOOLS else None


def is_mcp_echo(tool_name: str | None) -> bool:
    """True when the tool call is the agent asking backscroll's MCP server for history."""
    return mcp_tool(tool_name) is not None
