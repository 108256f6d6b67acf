#!/usr/bin/env python3
"""Real SWE-agent and AutoCodeRover trajectories, converted into Claude Code and Codex CLI session files.

    python bench/sweagent_acr_corpus.py OUT [--mirrors DIR] [--limit N] [--seed S] [--force]

writes ``OUT/.claude/projects/<slug>/<session-uuid>.jsonl`` (Claude Code 2.x transcript lines),
``OUT/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session-uuid>.jsonl`` (Codex CLI rollout lines) and
``OUT/manifest.json``, and prints a summary. The output is deterministic: the same mirror, ``--limit`` and
``--seed`` give byte-identical files. Nothing here touches the network and nothing of the data is committed:
the script reads one pinned commit of one public repository from a local bare git mirror. It is a third
corpus for the search benchmark, from two harnesses that ``bench/agent_corpus.py`` (Moatless Tools,
mini-swe-agent) does not hold.

Source (read with ``git cat-file`` from ``DIR/nus-apr+auto-code-rover/repo``; ``--mirrors`` defaults to
``$BACKSCROLL_MIRRORS`` or ``/work/.mirror``; the mirror is a bare clone with history, e.g.
``git clone --bare https://github.com/nus-apr/auto-code-rover DIR/nus-apr+auto-code-rover/repo``):

* ``nus-apr/auto-code-rover`` @ ``da4c04338dc7d4130da8383157f0aec5abe0f146`` (2024-06-10, "Update eval report
  of the 04-08 generated predictions"; ``results/`` was deleted by the next commit that touched it,
  fdec3f6 "rm results", 2024-07-22). Licence: the ``LICENSE`` file at that commit grants the repository's
  content under GPLv3 for non-commercial (incl. academic) use and asks commercial users to contact the authors
  (Abhik Roychoudhury, Jonathan Tan; NUS); the trajectories were committed by the AutoCodeRover authors
  themselves, as their ISSTA 2024 paper's artefacts. Both harnesses ran ``gpt-4-0125-preview`` on the 300
  instances of SWE-bench Lite (``princeton-nlp/SWE-bench_Lite``, test split), in April 2024:

  - SWE-agent (Princeton NLP's agent, the authors' baseline reruns: ``results/swe-agent-results/cost_2_1``,
    ``cost_2_2``, ``cost_2_3``, 275 + 276 + 275 ``.traj`` files over 276 instances; per-instance cost limit
    $2). A trajectory is a list of steps ``{response, thought, action, observation, state}``; the harness's
    system prompt, demonstration and instructions live only in ``history`` and are never read.
  - AutoCodeRover (``results/acr-run-1``, ``acr-run-2``, ``acr-run-3``: 300 task directories each, under
    ``applicable_patch/``, ``raw_patch_but_unmatched/``, ...). A directory's conversation is the highest
    ``debug_agent_write_patch_N.json`` (it holds the whole thread: retrieval rounds and every patch attempt),
    or, when the run never reached the patch stage, the highest ``conversation_round_N.json``; the proxy
    agent's JSON extractions (``agent_proxy_N.json``) give the bug locations; ``extracted_patch_N.diff`` the
    patch.

Selection: one session per SWE-bench Lite instance (300). An instance goes to AutoCodeRover when a hash of its id
says so (about a third) or when no SWE-agent run has it (24 instances), else to SWE-agent; within a harness the
runs are taken round-robin in sorted instance order (each instance takes the next run in the cycle that has a
readable, convertible trajectory for it). ``--limit N --seed S`` keeps a seeded random subset, stratified by
harness and run. A third of all sessions (those SWE-agent sessions first in a hash order of their ids) are
written as Codex CLI rollouts, the rest as Claude Code transcripts (every AutoCodeRover session: its search API
is not a shell, and Codex rollouts here carry ``shell`` calls only).

Layout: cwd ``/home/dev/<repo>`` (the GitHub repository name of the instance: ``django__django-11099`` ->
``django``), git branch ``fix/<instance-id>``, session id = uuid5 of the source repository, run and instance.
Claude Code lines follow ``backscroll/testing/sessions.py`` (``ClaudeSession``) with Claude Code 2.1.30's
envelope (``parentUuid``, ``isSidechain``, ``userType``, ``cwd``, ``sessionId``, ``version``, ``gitBranch``,
``type``, ``message``, ``uuid``, ``timestamp``); each content block of an assistant turn is a line of its own
sharing the message id; each tool result is a user line with ``toolUseResult`` and
``sourceToolAssistantUUID``; the first line is a ``summary`` (the issue's first meaningful line). Codex lines
follow ``CodexSession``: ``session_meta``, the ``<environment_context>`` message, then ``response_item`` messages
(``input_text`` / ``output_text``) each with its ``event_msg`` (``user_message`` / ``agent_message``), and
``function_call`` ``shell`` (``{"command": ["bash", "-lc", CMD], "workdir": CWD}``) +
``function_call_output`` (``{"output", "metadata": {"exit_code", "duration_seconds"}}``).

Mapping:

* The first user message is the issue as a person would paste it (one of a few fixed lead-ins, picked by hash,
  then the statement: SWE-agent's ``ISSUE:`` block, AutoCodeRover's ``<issue>`` body).
* SWE-agent: a step's ``thought`` (the reply without its command block) is assistant text; its ``action`` a
  ``Bash`` call ``{"command", "description"}`` (Claude; the description derived from the command) or a
  ``shell`` call (Codex), verbatim: SWE-agent's commands (``open``, ``goto``, ``edit N:M ... end_of_edit``,
  ``search_dir``, ``find_file``, ``create``, ``submit``) are shell functions in the agent's bash session; its
  ``observation`` the result. SWE-agent records no exit codes: a result is an error (Claude ``Exit code N``,
  Codex ``exit_code``) when bash refused it (syntax error: 2, command not found: 127), when SWE-agent's linter
  rejected an edit (1), or when a ``python``/``pytest`` run ended in a traceback (1). The ``exit_cost`` /
  ``exit_*`` pseudo-steps (the harness stopping the run) are dropped; the ``submit`` step's result is the diff.
  A run stopped before ``submit`` that still has a submission ends with an assistant "Here is the change:" +
  diff.
* AutoCodeRover: the system prompt, the search-API menu ("Based on the files, classes, ..."), the stage
  prompts ("Let's analyze collected context first", "Based on your analysis, answer below questions ...",
  "Write a patch for the issue ...") and the "search API calls seem not valid" retry notice are dropped; every
  model reply is assistant text. Its search API calls are MCP-style tool calls (``mcp__acr__search_class``,
  ``search_method_in_file``, ... with the call's arguments by name), one per ``Result of CALL:`` section of the
  harness's answer, the section its result (``is_error`` when the API found nothing: "Could not find ...",
  "... does not appear in the codebase"); a reply that named bug locations gets an
  ``mcp__acr__search_bug_locations`` call (``{"bug_locations": [...]}`` from the proxy agent's extraction of
  that round) whose result is "Here are the code in buggy locations: ..." (or the harness's "The buggy
  locations is not precise ..." as an error); a patch reply keeps its prose as text and its ``# modification N``
  blocks become an ``mcp__acr__write_patch`` call ``{"modifications": [{"file", "original", "patched"}]}``
  whose result is the harness's verdict ("Extracted a patch ..." or, as an error, "Your edit could not be
  applied ..."). When a patch was extracted, a last assistant text "Here is the change:" + the diff.
* Tool results are capped at 30,000 characters and assistant texts at 60,000, Claude Code style: the head
  and ``\\n\\n... [N lines truncated] ...``.

Timestamps: session starts are spread over 2026-01-05 .. 2026-12-04, in the order of a hash of the session id,
on working days (a weekend day has a sixth of a weekday's weight), between 08:00 and 18:30 UTC. Neither harness
kept per-step times: a reply takes a seeded pseudo-random 3..20 s plus its length at ~40 tokens/s (capped at
240 s), a command 0.2..3 s (a ``python``/``pytest`` run 1..15 s), a search API call 0.2..2 s.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import shlex
import shutil
import sys
import time
import uuid as uuidlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from claude_lines import NumberedLines, base62, cap, format_ts, stable_hash, transcript_path, write_transcript
from mirrors import CorpusError, Mirror, built, corpus_arguments

CLAUDE_VERSION = "2.1.30"
CODEX_VERSION = "0.63.0"
RESULT_CAP = 30_000
TEXT_CAP = 60_000
FIRST_DAY = date(2026, 1, 5)
LAST_DAY = date(2026, 12, 4)
DAY_START_H, DAY_END_H = 8.0, 18.5
WEEKEND_WEIGHT = 1 / 6
CODEX_SHARE = 1 / 3

SOURCE_REPO = "nus-apr/auto-code-rover"
SOURCE_COMMIT = "da4c04338dc7d4130da8383157f0aec5abe0f146"
MODEL = "gpt-4-0125-preview"
SWE_RUNS = ("cost_2_1", "cost_2_2", "cost_2_3")
SWE_DIR = "results/swe-agent-results"
ACR_RUNS = ("acr-run-1", "acr-run-2", "acr-run-3")
ACR_CATEGORIES = ("applicable_patch", "raw_patch_but_unmatched", "raw_patch_but_unparsed",
                  "matched_but_empty_diff", "matched_but_empty_origin")
MCP = "mcp__acr__"

PROMPT_LEADS = (
    "Can you take a look at this {repo} issue and fix it?",
    "Fix this bug please:",
    "Here's an issue from the {repo} tracker. Find the cause and patch it:",
    "This was reported against {repo}, can you fix it?",
    "Please fix the following issue:",
    "",
)
GENERIC_HEADINGS = {
    "description", "bug report", "describe the bug", "summary", "bug summary", "issue", "problem", "bug",
    "feature request", "bug description", "issue description", "the problem", "problem description",
    "is your feature request related to a problem? please describe.", "what happened?", "what happened",
    "bug summary:", "code for reproduction", "steps to reproduce", "environment", "motivation",
}
API_ARGS = {
    "search_class": ("class_name",),
    "search_class_in_file": ("class_name", "file_name"),
    "search_method": ("method_name",),
    "search_method_in_file": ("method_name", "file_path"),
    "search_method_in_class": ("method_name", "class_name"),
    "search_code": ("code_str",),
    "search_code_in_file": ("code_str", "file_path"),
    "get_code_around_line": ("file_path", "line_no", "window_size"),
}


# ---------------------------------------------------------------------------------------------------- reading


# ---------------------------------------------------------------------------------------------------- model


@dataclass
class Result:
    text: str
    is_error: bool = False
    exit_code: int = 0


@dataclass
class Call:
    name: str
    input: dict[str, Any]
    result: Result | None = None
    shell: bool = False  # a shell command (Claude ``Bash``, Codex ``shell``), ``input["command"]``


@dataclass
class Turn:
    """One assistant message: text and the tool calls it made, each with its result."""

    text: str = ""
    calls: list[Call] = field(default_factory=list)
    usage: dict[str, int] | None = None


@dataclass
class Convo:
    harness: str
    run: str
    instance_id: str
    source_path: str
    problem: str
    turns: list[Turn]
    submission: str = ""
    notes: Counter[str] = field(default_factory=Counter)

    @property
    def shell_only(self) -> bool:
        return all(c.shell for t in self.turns for c in t.calls)


def repo_of(instance_id: str) -> str:
    """``django__django-11099`` -> ``django``; ``scikit-learn__scikit-learn-10297`` -> ``scikit-learn``."""
    return instance_id.split("__", 1)[-1].rsplit("-", 1)[0]


def _estimate_usage(turns: list[Turn], problem: str) -> None:
    """Token counts per turn (neither harness kept them per call): about 4 characters a token, the context
    growing with every reply and result."""
    context = len(problem) // 4 + 1800
    for turn in turns:
        out = (len(turn.text) + sum(len(json.dumps(c.input)) for c in turn.calls)) // 4 + 8
        turn.usage = {"input_tokens": context, "cache_read_input_tokens": 0, "output_tokens": out}
        context += out + sum(len(c.result.text) // 4 for c in turn.calls if c.result)


# ---------------------------------------------------------------------------------------------------- SWE-agent

EXIT_ACTIONS = re.compile(r"^exit_(cost|context|error|format|api)\b")
BASH_REFUSED = re.compile(r"^/bin/bash: line \d+: (syntax error|`)", re.MULTILINE)
NOT_FOUND = re.compile(r"^(/bin/bash: line \d+: )?\S+: command not found", re.MULTILINE)


def swe_problem(history: list[dict[str, Any]]) -> str:
    first = next(h for h in history if h.get("role") == "user")
    m = re.search(r"ISSUE:\n(.*?)\n+INSTRUCTIONS:\n", str(first["content"]), re.DOTALL)
    if not m:
        raise ValueError("no ISSUE: block in the first user message")
    return m.group(1).strip()


def swe_result(action: str, observation: str) -> Result:
    """SWE-agent's observation as a shell result, with the exit code the command most likely had."""
    first = action.strip().split(None, 1)[0] if action.strip() else ""
    if BASH_REFUSED.search(observation[:400]):
        return Result(observation, True, 2)
    if NOT_FOUND.search(observation[:400]):
        return Result(observation, True, 127)
    if observation.lstrip().startswith("Your proposed edit has introduced new syntax error"):
        return Result(observation, True, 1)
    runs_python = first in ("python", "python3", "pytest") or first.startswith("./")
    if runs_python and "Traceback (most recent call last):" in observation \
            and "Script completed successfully" not in observation:
        return Result(observation, True, 1)
    return Result(observation)


def convert_sweagent(data: dict[str, Any], run: str, instance_id: str, path: str) -> Convo:
    convo = Convo("swe-agent", run, instance_id, path, swe_problem(data["history"]), [],
                  str((data.get("info") or {}).get("submission") or ""))
    submitted = False
    for step in data["trajectory"]:
        action = str(step.get("action") or "").strip("\n")
        thought = str(step.get("thought") or "").strip()
        if EXIT_ACTIONS.match(action.strip()):
            convo.notes["exit pseudo-steps dropped"] += 1
            continue
        state = {}
        try:
            state = json.loads(step.get("state") or "{}")
        except ValueError:
            pass
        turn = Turn(text=thought)
        if action.strip():
            command = action.strip("\n")
            call = Call("Bash", {"command": command, "description": describe_swe(command, state)}, shell=True)
            call.result = swe_result(command, str(step.get("observation") or ""))
            turn.calls.append(call)
            submitted = submitted or command.strip() == "submit"
        if turn.text or turn.calls:
            convo.turns.append(turn)
    if submitted:
        convo.submission = ""  # the submit step's result shows the diff already
    if not any(t.calls for t in convo.turns):
        raise ValueError("no actions")
    _estimate_usage(convo.turns, convo.problem)
    return convo


def _base(path: str) -> str:
    return os.path.basename(path.strip().strip("'\""))


def describe_swe(command: str, state: dict[str, Any]) -> str:
    """A short Claude-style ``description`` of a SWE-agent command or a shell command."""
    c = command.strip()
    c = re.sub(r"^(cd\s+\S+\s*(&&|;)\s*)+", "", c)
    first = c.split("\n", 1)[0].strip()
    try:
        words = shlex.split(first)
    except ValueError:
        words = first.split()
    if not words:
        return "Run a shell command"
    prog, args = words[0], words[1:]
    open_file = _base(str(state.get("open_file") or "")) if state.get("open_file") not in (None, "n/a") else ""
    if prog == "open" and args:
        return f"Open {_base(args[0])}" + (f" at line {args[1]}" if len(args) > 1 else "")
    if prog == "goto" and args:
        return f"Go to line {args[0]}" + (f" of {open_file}" if open_file else "")
    if prog in ("scroll_down", "scroll_up"):
        return ("Scroll down" if prog == "scroll_down" else "Scroll up") + (f" in {open_file}" if open_file else "")
    if prog == "create" and args:
        return f"Create {_base(args[0])}"
    if prog == "edit":
        span = args[0] if args else ""
        target = f" of {open_file}" if open_file else ""
        return f"Edit lines {span.replace(':', '-')}{target}" if span else f"Edit{target or ' the open file'}"
    if prog == "search_dir" and args:
        return f"Search the repo for {args[0]}" + (f" in {args[1]}" if len(args) > 1 else "")
    if prog == "search_file" and args:
        where = _base(args[1]) if len(args) > 1 else open_file
        return f"Search {where or 'the open file'} for {args[0]}"
    if prog == "find_file" and args:
        return f"Find files named {args[0]}"
    if prog == "submit":
        return "Submit the change"
    if prog in ("python", "python3"):
        if "-m" in args and "pytest" in args:
            return "Run the tests"
        if "-c" in args:
            return "Run a Python snippet"
        script = next((a for a in args if not a.startswith("-")), "")
        return f"Run {_base(script)}" if script else "Run Python"
    if prog == "pytest" or "runtests" in prog:
        return "Run the tests"
    fixed = {"ls": "List files", "find": "Find files", "grep": "Search the code", "mkdir": "Create a directory",
             "rm": "Remove files", "cp": "Copy files", "mv": "Move files", "echo": "Print text",
             "touch": "Create a file", "chmod": "Change permissions", "pip": "Install packages",
             "cat": "Show a file", "head": "Show the start of a file", "tail": "Show the end of a file"}
    if prog in fixed:
        return fixed[prog]
    if prog == "git":
        return f"Run git {args[0]}" if args else "Run git"
    if re.match(r"^[A-Za-z_][\w-]*$", prog):
        return f"Run {prog}"
    return "Run a shell command"


# ---------------------------------------------------------------------------------------------------- AutoCodeRover

RESULT_HEADER = re.compile(r"^Result of ((\w+)\((.*)\)):\n", re.MULTILINE)
MODIFICATION = re.compile(r"<file>(.*?)</file>\s*<original>(.*?)</original>\s*<patched>(.*?)</patched>", re.DOTALL)
MOD_BLOCK = re.compile(r"(?:^#+\s*modification\s*\d+[^\n]*\n)?\s*```[a-z]*\s*\n?\s*<file>.*?</patched>\s*```",
                       re.DOTALL | re.IGNORECASE | re.MULTILINE)
NOT_FOUND_API = re.compile(r"^(Could not find|The method \S+ does not appear|Unknown function|"
                           r"There is no|Failed to)", re.MULTILINE)
DROPPED_PROMPTS = ("Based on the files, classes", "Let's analyze collected context first",
                   "Based on your analysis, answer below questions", "Write a patch for the issue")


def _api_input(name: str, args_src: str) -> dict[str, Any]:
    try:
        node = ast.parse(f"f({args_src})", mode="eval").body
        assert isinstance(node, ast.Call)
        values = [ast.literal_eval(a) for a in node.args]
        named = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    except (SyntaxError, ValueError, AssertionError, TypeError):
        return {"call": f"{name}({args_src})"}
    names = API_ARGS.get(name, ())
    out: dict[str, Any] = {}
    for k, v in enumerate(values):
        out[names[k] if k < len(names) else f"arg{k + 1}"] = v
    out.update(named)
    return out


def _api_calls(message: str) -> list[Call]:
    heads = list(RESULT_HEADER.finditer(message))
    calls = []
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(message)
        body = message[m.end():end].strip("\n")
        name = m.group(2)
        calls.append(Call(MCP + name, _api_input(name, m.group(3)),
                          Result(body, is_error=bool(NOT_FOUND_API.match(body)))))
    return calls


def _split_patch(reply: str) -> tuple[str, list[dict[str, str]]]:
    mods = [{"file": f.strip(), "original": o.strip("\n"), "patched": p.strip("\n")}
            for f, o, p in MODIFICATION.findall(reply)]
    if not mods:
        return reply.strip(), []
    prose = MOD_BLOCK.sub("", reply)
    prose = re.sub(r"\n{3,}", "\n\n", prose).strip()
    return prose, mods


def _proxy_locations(proxy: Any) -> list[dict[str, Any]] | None:
    """The bug locations the proxy agent extracted in a round (its last thread's last answer), or None."""
    if not isinstance(proxy, list) or not proxy or not isinstance(proxy[-1], list) or not proxy[-1]:
        return None
    last = proxy[-1][-1]
    try:
        data = json.loads(str(last.get("content") or ""))
    except (ValueError, AttributeError):
        return None
    locs = data.get("bug_locations") if isinstance(data, dict) else None
    if not isinstance(locs, list):
        return None
    return [{k: v for k, v in loc.items() if v not in ("", None)} for loc in locs if isinstance(loc, dict)]


def convert_acr(messages: list[dict[str, Any]], proxies: dict[int, Any], diff: str, run: str, instance_id: str,
                path: str) -> Convo:
    convo = Convo("autocoderover", run, instance_id, path, "", [], diff)
    last: Turn | None = None
    expect = "decision"  # what the next reply is: a retrieval decision, an analysis, or a patch
    round_no = -1
    pending_patch: list[dict[str, str]] | None = None
    for msg in messages:
        role, content = msg.get("role"), str(msg.get("content") or "")
        if role == "system":
            continue
        if role == "assistant":
            if expect == "patch":
                text, mods = _split_patch(content)
                last = Turn(text=text)
                pending_patch = mods
            else:
                last = Turn(text=content.strip())
                if expect == "decision":
                    round_no += 1
            convo.turns.append(last)
            if expect == "analysis":
                expect = "decision"
            continue
        if content.startswith("<issue>") and not convo.problem:
            convo.problem = re.sub(r"^<issue>|</issue>\s*$", "", content.strip()).strip()
            continue
        if content.startswith("Let's analyze collected context first"):
            expect = "analysis"
            continue
        if content.startswith("Write a patch for the issue"):
            expect = "patch"
            continue
        if content.startswith(DROPPED_PROMPTS):
            continue
        if content.startswith("The search API calls seem not valid"):
            convo.notes["'search API calls not valid' notices dropped"] += 1
            continue
        if last is None:
            convo.notes["harness messages before any reply dropped"] += 1
            continue
        if content.startswith("Result of "):
            calls = _api_calls(content)
            if not calls:
                raise ValueError("unparsable search results")
            last.calls.extend(calls)
        elif content.startswith(("Here are the code in buggy locations", "Here is the code in buggy locations",
                                 "The buggy locations is not precise")):
            locs = _proxy_locations(proxies.get(round_no))
            if locs is None:
                convo.notes["bug locations without a proxy extraction"] += 1
            error = content.startswith("The buggy locations")
            last.calls.append(Call(MCP + "search_bug_locations", {"bug_locations": locs or []},
                                   Result(content.strip(), is_error=error)))
        elif content.startswith(("Extracted a patch", "Your edit could not be applied")):
            mods = pending_patch if pending_patch is not None else []
            last.calls.append(Call(MCP + "write_patch", {"modifications": mods},
                                   Result(content.strip(), is_error=content.startswith("Your edit"))))
            pending_patch = None
        else:
            convo.notes["other harness messages dropped"] += 1
    if not convo.problem:
        raise ValueError("no <issue> message")
    if not any(t.calls for t in convo.turns):
        raise ValueError("no tool calls")
    _estimate_usage(convo.turns, convo.problem)
    return convo


def _numbered(names: list[str], stem: str) -> list[tuple[int, str]]:
    out = []
    for n in names:
        m = re.fullmatch(rf"{re.escape(stem)}_(\d+)(\.json|\.diff)?", n)
        if m:
            out.append((int(m.group(1)), n))
    return sorted(out)


def load_acr(mirror: Mirror, task_dir: str, files: list[str], run: str, instance_id: str) -> Convo:
    writes = [n for _, n in _numbered(files, "debug_agent_write_patch")]
    rounds = [n for _, n in _numbered(files, "conversation_round")]
    if not (writes or rounds):
        raise ValueError("no conversation file")
    source = (writes or rounds)[-1]
    messages = mirror.json(f"{task_dir}/{source}")
    if not isinstance(messages, list):
        raise ValueError("missing or unreadable conversation")
    proxies = {k: mirror.json(f"{task_dir}/{n}") for k, n in _numbered(files, "agent_proxy")}
    diffs = _numbered(files, "extracted_patch")
    diff = (mirror.read(f"{task_dir}/{diffs[-1][1]}") or b"").decode("utf-8", "replace") if diffs else ""
    return convert_acr(messages, proxies, diff, run, instance_id, f"{task_dir}/{source}")


# ---------------------------------------------------------------------------------------------------- writing


def title_of(problem: str) -> str:
    """The issue's first meaningful line (its title, for most SWE-bench statements), at most ~90 characters."""
    text = re.sub(r"<!--.*?-->", "", problem, flags=re.DOTALL)
    for line in text.splitlines():
        line = re.sub(r"^[#>*\s]+|[*\s]+$", "", line).strip()
        if not line or line.lower().rstrip(":") in GENERIC_HEADINGS or line.startswith("```"):
            continue
        if len(line) > 90:
            line = line[:90].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return line
    return "Fix issue"


def session_id_of(convo: Convo) -> str:
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"https://github.com/{SOURCE_REPO}/{convo.harness}/"
                                                    f"{convo.run}/{convo.instance_id}"))


def spread_starts(session_ids: list[str]) -> dict[str, datetime]:
    """A distinct start per session: hash order, spread over the days by weight (weekdays 1, weekend days less),
    in working hours."""
    order = sorted(session_ids, key=lambda s: (stable_hash("start", s), s))
    days = [FIRST_DAY + timedelta(days=k) for k in range((LAST_DAY - FIRST_DAY).days + 1)]
    weights = [WEEKEND_WEIGHT if d.weekday() >= 5 else 1.0 for d in days]
    total = sum(weights)
    edges, acc = [], 0.0
    for w in weights:
        acc += w
        edges.append(acc)
    by_day: dict[int, list[str]] = defaultdict(list)
    k_day = 0
    for k, sid in enumerate(order):
        pos = (k + 0.5) * total / max(1, len(order))
        while edges[k_day] < pos:
            k_day += 1
        by_day[k_day].append(sid)
    starts: dict[str, datetime] = {}
    window = (DAY_END_H - DAY_START_H) * 3600
    for day, sids in by_day.items():
        base = datetime.combine(days[day], datetime.min.time(), UTC) + timedelta(hours=DAY_START_H)
        slot = window / len(sids)
        for i, sid in enumerate(sids):
            jitter = (stable_hash("jitter", sid) % 1_000_000) / 1_000_000 * slot * 0.7
            starts[sid] = base + timedelta(seconds=round(slot * i + jitter, 3))
    return starts


class Clock:
    """A session's pseudo-random but deterministic pace (neither harness kept per-step times)."""

    def __init__(self, session_id: str, start: datetime):
        self.rng = random.Random(stable_hash("steps", session_id))
        self.now = start

    def reply(self, turn: Turn) -> datetime:
        chars = len(turn.text) + sum(len(json.dumps(c.input)) for c in turn.calls)
        self.now += timedelta(seconds=min(240.0, self.rng.uniform(3.0, 20.0) + chars / 4 / 40))
        return self.now

    def run(self, call: Call) -> float:
        if call.shell:
            first = str(call.input.get("command", "")).split(None, 1)[:1]
            slow = bool(first) and first[0] in ("python", "python3", "pytest")
            return self.rng.uniform(1.0, 15.0) if slow else self.rng.uniform(0.2, 3.0)
        return self.rng.uniform(0.2, 2.0)

    def pause(self, lo: float, hi: float) -> datetime:
        self.now += timedelta(seconds=self.rng.uniform(lo, hi))
        return self.now


def first_prompt(convo: Convo, session_id: str) -> str:
    repo = repo_of(convo.instance_id)
    lead = PROMPT_LEADS[stable_hash("lead", session_id) % len(PROMPT_LEADS)].format(repo=repo)
    problem = convo.problem.replace("\r\n", "\n").strip()  # SWE-bench keeps GitHub's CRLFs; a paste has none
    return f"{lead}\n\n{problem}" if lead else problem


class ClaudeWriter(NumberedLines):
    """Claude Code transcript lines for one converted trajectory."""

    def __init__(self, convo: Convo, session_id: str, start: datetime):
        self.convo = convo
        self.session_id = session_id
        self.repo = repo_of(convo.instance_id)
        self.cwd = f"/home/dev/{self.repo}"
        self.branch = f"fix/{convo.instance_id}"
        self.clock = Clock(session_id, start)
        self.lines: list[dict[str, Any]] = []
        self.last_uuid: str | None = None
        self.n = 0
        self.counts: Counter[str] = Counter()

    def path(self, out: Path) -> Path:
        return transcript_path(out, self.cwd, self.session_id)

    def _line(self, kind: str, message: dict[str, Any], at: datetime, **extra: Any) -> str:
        uid = self._id(kind)
        self.lines.append({"parentUuid": self.last_uuid, "isSidechain": False, "userType": "external",
                           "cwd": self.cwd, "sessionId": self.session_id, "version": CLAUDE_VERSION,
                           "gitBranch": self.branch, "type": kind, "message": message, "uuid": uid,
                           "timestamp": format_ts(at), **extra})
        self.last_uuid = uid
        return uid

    def _assistant(self, blocks: list[dict[str, Any]], stop: str, usage: dict[str, int] | None,
                   at: datetime) -> tuple[list[str], datetime]:
        self.counts["turns"] += 1
        msg_id = "msg_01" + base62(f"{self.session_id}:msg:{self.counts['turns']}", 22)
        request = "req_011C" + base62(f"{self.session_id}:req:{self.counts['turns']}", 20)
        use = usage or {"input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0}
        usage_obj = {"input_tokens": use.get("input_tokens", 0), "cache_creation_input_tokens": 0,
                     "cache_read_input_tokens": use.get("cache_read_input_tokens", 0),
                     "output_tokens": use.get("output_tokens", 0), "service_tier": "standard"}
        uids = []
        for k, block in enumerate(blocks):
            message = {"id": msg_id, "type": "message", "role": "assistant", "model": MODEL,
                       "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage_obj}
            uids.append(self._line("assistant", message, at + timedelta(seconds=0.35 * k), requestId=request))
        return uids, at + timedelta(seconds=0.35 * max(0, len(blocks) - 1))

    def build(self) -> list[dict[str, Any]]:
        convo, clock = self.convo, self.clock
        self._line("user", {"role": "user", "content": first_prompt(convo, self.session_id)}, clock.now)
        self.counts["user"] += 1
        for index, turn in enumerate(convo.turns):
            at = clock.reply(turn)
            blocks: list[dict[str, Any]] = []
            if turn.text:
                blocks.append({"type": "text", "text": cap(turn.text, TEXT_CAP)})
                self.counts["assistant_text"] += 1
            ids = []
            for k, call in enumerate(turn.calls):
                call_id = "toolu_01" + base62(f"{self.session_id}:call:{index}:{k}", 22)
                ids.append(call_id)
                name = "Bash" if call.shell else call.name
                blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": call.input})
                self.counts["tool_use"] += 1
            if not blocks:
                continue
            uids, last = self._assistant(blocks, "tool_use" if turn.calls else "end_turn", turn.usage, at)
            call_uids = uids[len(uids) - len(turn.calls):]
            when = last
            for call, call_id, src in zip(turn.calls, ids, call_uids, strict=True):
                if call.result is None:
                    continue
                when += timedelta(seconds=clock.run(call))
                self._result(call, call_id, src, when)
            clock.now = max(clock.now, when)
        if convo.submission.strip():
            at = clock.pause(3.0, 15.0)
            text = f"Here is the change:\n```diff\n{convo.submission.strip(chr(10))}\n```"
            self._assistant([{"type": "text", "text": cap(text, TEXT_CAP)}], "end_turn", None, at)
            self.counts["assistant_text"] += 1
        return [{"type": "summary", "summary": title_of(convo.problem), "leafUuid": self.last_uuid}, *self.lines]

    def _result(self, call: Call, call_id: str, source_uuid: str, at: datetime) -> None:
        result = call.result
        assert result is not None
        output = result.text
        tool_use_result: Any
        if call.shell:
            if result.is_error:
                content = cap(f"Exit code {result.exit_code}\n{output}".rstrip("\n"), RESULT_CAP)
                tool_use_result = f"Error: {content}"
            else:
                content = cap(output.rstrip("\n"), RESULT_CAP) or "(Bash completed with no output)"
                tool_use_result = {"stdout": cap(output.rstrip("\n"), RESULT_CAP), "stderr": "",
                                   "interrupted": False, "isImage": False}
        else:
            content = cap(output.strip("\n"), RESULT_CAP) or "Tool ran without output or errors"
            tool_use_result = f"Error: {content}" if result.is_error else [{"type": "text", "text": content}]
        block = {"tool_use_id": call_id, "type": "tool_result", "content": content, "is_error": result.is_error}
        self._line("user", {"role": "user", "content": [block]}, at, toolUseResult=tool_use_result,
                   sourceToolAssistantUUID=source_uuid)
        self.counts["tool_result"] += 1


class CodexWriter:
    """Codex CLI rollout lines for one converted trajectory (shell calls only)."""

    def __init__(self, convo: Convo, session_id: str, start: datetime):
        if not convo.shell_only:
            raise ValueError("a Codex rollout holds shell calls only")
        self.convo = convo
        self.session_id = session_id
        self.start = start
        self.repo = repo_of(convo.instance_id)
        self.cwd = f"/home/dev/{self.repo}"
        self.branch = f"fix/{convo.instance_id}"
        self.clock = Clock(session_id, start)
        self.lines: list[dict[str, Any]] = []
        self.counts: Counter[str] = Counter()

    def path(self, out: Path) -> Path:
        name = f"rollout-{self.start.strftime('%Y-%m-%dT%H-%M-%S')}-{self.session_id}.jsonl"
        return out / ".codex" / "sessions" / self.start.strftime("%Y/%m/%d") / name

    def _line(self, kind: str, payload: dict[str, Any], at: datetime) -> None:
        self.lines.append({"timestamp": format_ts(at), "type": kind, "payload": payload})

    def _message(self, role: str, text: str, at: datetime) -> None:
        kind = "input_text" if role == "user" else "output_text"
        self._line("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}, at)
        event = ({"type": "user_message", "message": text, "images": []} if role == "user"
                 else {"type": "agent_message", "message": text})
        self._line("event_msg", event, at + timedelta(milliseconds=2))

    def build(self) -> list[dict[str, Any]]:
        convo, clock = self.convo, self.clock
        at = clock.now
        self._line("session_meta", {"id": self.session_id, "timestamp": format_ts(at), "cwd": self.cwd,
                                    "originator": "codex_cli_rs", "cli_version": CODEX_VERSION,
                                    "model_provider": "openai", "git": {"branch": self.branch}}, at)
        self._line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n</environment_context>"}]},
            at)
        self._message("user", first_prompt(convo, self.session_id), at + timedelta(milliseconds=5))
        self.counts["user"] += 1
        for index, turn in enumerate(convo.turns):
            at = clock.reply(turn)
            if turn.text:
                self._message("assistant", cap(turn.text, TEXT_CAP), at)
                self.counts["assistant_text"] += 1
            for k, call in enumerate(turn.calls):
                call_id = "call_" + base62(f"{self.session_id}:call:{index}:{k}", 24)
                at += timedelta(milliseconds=40)
                args = {"command": ["bash", "-lc", call.input["command"]], "workdir": self.cwd}
                self._line("response_item", {"type": "function_call", "name": "shell",
                                             "arguments": json.dumps(args, ensure_ascii=False),
                                             "call_id": call_id}, at)
                self.counts["tool_use"] += 1
                if call.result is None:
                    continue
                took = clock.run(call)
                at += timedelta(seconds=took)
                text = cap(call.result.text.rstrip("\n"), RESULT_CAP)
                out = json.dumps({"output": text, "metadata": {"exit_code": call.result.exit_code,
                                                               "duration_seconds": round(took, 1)}},
                                 ensure_ascii=False)
                self._line("response_item", {"type": "function_call_output", "call_id": call_id, "output": out}, at)
                self.counts["tool_result"] += 1
            clock.now = max(clock.now, at)
        if convo.submission.strip():
            at = clock.pause(3.0, 15.0)
            self._message("assistant", cap(f"Here is the change:\n```diff\n{convo.submission.strip(chr(10))}\n```",
                                           TEXT_CAP), at)
            self.counts["assistant_text"] += 1
        return self.lines


# ---------------------------------------------------------------------------------------------------- corpus


@dataclass
class Candidate:
    harness: str
    run: str
    instance_id: str
    convo: Convo


def swe_candidates(mirror: Mirror, instances: list[str], stats: Counter[str]) -> dict[str, Candidate]:
    paths: dict[str, dict[str, str]] = {run: {} for run in SWE_RUNS}
    for run in SWE_RUNS:
        for p in mirror.ls(f"{SWE_DIR}/{run}/"):
            m = re.fullmatch(rf"{re.escape(SWE_DIR)}/{run}/([^/]+)\.traj", p)
            if m:
                paths[run][m.group(1)] = p
    out: dict[str, Candidate] = {}
    pointer = 0
    for instance_id in instances:
        for step in range(len(SWE_RUNS)):
            k = (pointer + step) % len(SWE_RUNS)
            run = SWE_RUNS[k]
            path = paths[run].get(instance_id)
            if path is None:
                continue
            data = mirror.json(path)
            try:
                if not isinstance(data, dict):
                    raise ValueError("missing or unreadable blob")
                convo = convert_sweagent(data, run, instance_id, path)
            except (KeyError, TypeError, ValueError, StopIteration, AttributeError) as exc:
                stats[f"swe-agent {run}: skipped ({type(exc).__name__}: {exc})"] += 1
                continue
            out[instance_id] = Candidate("swe-agent", run, instance_id, convo)
            pointer = k + 1
            break
    return out


def acr_candidates(mirror: Mirror, instances: list[str], stats: Counter[str]) -> dict[str, Candidate]:
    dirs: dict[str, dict[str, tuple[str, list[str]]]] = {run: {} for run in ACR_RUNS}
    for run in ACR_RUNS:
        files: dict[str, list[str]] = defaultdict(list)
        for p in mirror.ls(f"results/{run}/"):
            m = re.fullmatch(rf"(results/{run}/([^/]+)/([^/]+?)_\d{{4}}-\d\d-\d\d_\d\d-\d\d-\d\d)/([^/]+)", p)
            if m and m.group(2) in ACR_CATEGORIES:
                files[m.group(1)].append(m.group(4))
                dirs[run].setdefault(m.group(3), (m.group(1), files[m.group(1)]))
    out: dict[str, Candidate] = {}
    pointer = 0
    for instance_id in instances:
        for step in range(len(ACR_RUNS)):
            k = (pointer + step) % len(ACR_RUNS)
            run = ACR_RUNS[k]
            if instance_id not in dirs[run]:
                continue
            task_dir, names = dirs[run][instance_id]
            try:
                convo = load_acr(mirror, task_dir, names, run, instance_id)
            except (KeyError, TypeError, ValueError, StopIteration, AttributeError) as exc:
                stats[f"autocoderover {run}: skipped ({type(exc).__name__}: {exc})"] += 1
                continue
            out[instance_id] = Candidate("autocoderover", run, instance_id, convo)
            pointer = k + 1
            break
    return out


def stratified(cands: list[Candidate], limit: int | None, seed: int) -> list[Candidate]:
    """All of ``cands``, or ``limit`` of them: a seeded sample, each (harness, run) stratum in proportion."""
    if limit is None or limit >= len(cands):
        return cands
    strata: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
    for c in cands:
        strata[(c.harness, c.run)].append(c)
    keys = sorted(strata)
    share = {k: limit * len(strata[k]) / len(cands) for k in keys}
    quota = {k: int(share[k]) for k in keys}
    if limit >= len(keys):
        for k in keys:
            quota[k] = max(1, quota[k])
    for k in sorted(keys, key=lambda k: (-(share[k] - int(share[k])), k)):
        if sum(quota.values()) >= limit:
            break
        quota[k] += 1
    while sum(quota.values()) > limit:
        k = max(keys, key=lambda k: (quota[k] - share[k], quota[k]))
        quota[k] -= 1
    rng = random.Random(seed)
    chosen: list[Candidate] = []
    for k in keys:
        chosen.extend(rng.sample(sorted(strata[k], key=lambda c: c.instance_id), min(quota[k], len(strata[k]))))
    return sorted(chosen, key=lambda c: c.instance_id)


def select(mirror: Mirror, stats: Counter[str]) -> list[Candidate]:
    tasks = (mirror.read(f"results/{ACR_RUNS[0]}/tasks.txt") or b"").decode().split()
    swe_ids = {re.sub(r"\.traj$", "", p.rsplit("/", 1)[-1]) for p in mirror.ls(f"{SWE_DIR}/")
               if p.endswith(".traj")}
    instances = sorted(set(tasks) | swe_ids)
    if not instances:
        raise CorpusError(f"no SWE-bench Lite tasks under results/ in {SOURCE_REPO}@{SOURCE_COMMIT}")
    stats["instances"] = len(instances)
    want_acr = {i for i in instances if stable_hash("harness", i) % 3 == 0 or i not in swe_ids}
    swe = swe_candidates(mirror, [i for i in instances if i not in want_acr], stats)
    acr = acr_candidates(mirror, [i for i in instances if i in want_acr or i not in swe], stats)
    chosen = []
    for i in instances:
        c = swe.get(i) if i not in want_acr else None
        c = c or acr.get(i) or swe.get(i)
        if c is None:
            stats["instances without a usable trajectory"] += 1
            continue
        chosen.append(c)
    return chosen


def build(out: Path, mirrors: Path, limit: int | None, seed: int, force: bool) -> dict[str, Any]:
    t0 = time.monotonic()
    targets = (out / ".claude" / "projects", out / ".codex" / "sessions", out / "manifest.json")
    if any(t.exists() for t in targets):
        if not force:
            raise CorpusError(f"{out} already holds a corpus (.claude/projects, .codex/sessions or manifest.json): "
                              "pass --force")
        for t in targets[:2]:
            shutil.rmtree(t, ignore_errors=True)
        targets[2].unlink(missing_ok=True)
    mirror = Mirror(mirrors, SOURCE_REPO, SOURCE_COMMIT)
    stats: Counter[str] = Counter()
    try:
        cands = stratified(select(mirror, stats), limit, seed)
    finally:
        mirror.close()
    t_read = time.monotonic() - t0

    convos = {session_id_of(c.convo): c.convo for c in cands}
    starts = spread_starts(list(convos))
    shell = sorted((s for s, c in convos.items() if c.shell_only), key=lambda s: (stable_hash("format", s), s))
    codex = set(shell[:round(len(convos) * CODEX_SHARE)])
    manifest: list[dict[str, Any]] = []
    total_lines = total_bytes = 0
    notes: Counter[str] = Counter()
    for sid in sorted(convos, key=lambda s: (starts[s], s)):
        convo = convos[sid]
        writer: ClaudeWriter | CodexWriter = (CodexWriter if sid in codex else ClaudeWriter)(convo, sid, starts[sid])
        lines = writer.build()
        file = writer.path(out)
        total_lines += len(lines)
        total_bytes += write_transcript(file, lines)
        notes.update(convo.notes)
        stamped = [line["timestamp"] for line in lines if "timestamp" in line]
        rel = str(file.relative_to(out))
        manifest.append({
            "session_id": sid, "format": "codex" if sid in codex else "claude", "path": rel, "file": rel,
            "source_repo": SOURCE_REPO, "commit": SOURCE_COMMIT, "source_path": convo.source_path,
            "harness": convo.harness, "run": convo.run, "model": MODEL, "instance_id": convo.instance_id,
            "repo": writer.repo, "cwd": writer.cwd, "start": stamped[0], "end": stamped[-1],
            "records": {k: writer.counts[k] for k in ("user", "assistant_text", "tool_use", "tool_result")},
        })
    (out / "manifest.json").parent.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return {"manifest": manifest, "stats": stats, "notes": notes, "lines": total_lines, "bytes": total_bytes,
            "read_seconds": t_read, "seconds": time.monotonic() - t0}


def print_summary(report: dict[str, Any], out: Path) -> None:
    manifest = report["manifest"]
    print(f"{len(manifest)} sessions -> {out / '.claude' / 'projects'}, {out / '.codex' / 'sessions'} "
          f"(manifest: {out / 'manifest.json'})")
    print("sessions per harness / run / format:")
    for (harness, run, fmt), n in sorted(Counter((m["harness"], m["run"], m["format"]) for m in manifest).items()):
        print(f"  {n:5d}  {harness:14s} {run:10s} {fmt}")
    print("sessions per repo:  " + ", ".join(f"{r} {n}" for r, n in Counter(m["repo"] for m in manifest)
                                             .most_common()))
    records: Counter[str] = Counter()
    for m in manifest:
        records.update(m["records"])
    print("records: " + ", ".join(f"{k} {v}" for k, v in records.items()))
    for label, counter in (("selection", report["stats"]), ("conversion", report["notes"])):
        if counter:
            print(f"{label}: " + "; ".join(f"{k}: {v}" for k, v in sorted(counter.items())))
    print(f"{report['lines']} lines, {report['bytes'] / 1e6:.1f} MB; read+convert {report['read_seconds']:.1f} s, "
          f"total {report['seconds']:.1f} s")


def main(argv: list[str] | None = None) -> int:
    ap = corpus_arguments(__doc__, "output directory (gets .claude/projects/, .codex/sessions/ and manifest.json)")
    ap.add_argument("--limit", type=int, default=None, help="keep a seeded, stratified subset of N sessions")
    ap.add_argument("--seed", type=int, default=0, help="seed of the --limit subset (default 0)")
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    report = built("sweagent_acr_corpus", lambda: build(args.out, args.mirrors, args.limit, args.seed, args.force))
    if report is None:
        return 2
    print_summary(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
