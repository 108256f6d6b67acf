#!/usr/bin/env python3
"""Real public coding-agent trajectories, converted into Claude Code session files, for a search benchmark.

    python bench/agent_corpus.py OUT [--mirrors DIR] [--limit N] [--seed S] [--force]

writes ``OUT/.claude/projects/<slug>/<session-uuid>.jsonl`` (Claude Code 2.x transcript lines) and
``OUT/manifest.json``, and prints a summary. The output is deterministic: the same mirrors, ``--limit`` and
``--seed`` give byte-identical files. Nothing here touches the network and nothing of the data is committed:
the script reads pinned commits of two public repositories from local bare git mirrors.

Sources (read with ``git cat-file`` from ``DIR/<owner>+<name>/repo``; ``--mirrors`` defaults to
``$BACKSCROLL_MIRRORS`` or ``/work/.mirror``; a mirror is a bare clone, e.g.
``git clone --bare https://github.com/aorwall/moatless-tools DIR/aorwall+moatless-tools/repo``):

* ``aorwall/moatless-tools`` @ ``91f874186e8298e5270c00a334c7a962bb4cdfad`` (MIT, "Copyright (c) 2024 Albert
  Örwall"; the author committed the trajectories himself; ``evaluations/`` was deleted from later commits).
  Moatless Tools on SWE-bench Lite, four runs in three schemas:
  ``20240609_moatless_gpt4o`` (v1 ``steps``, gpt-4o), ``20240617_moatless_gpt-4o-2024-05-13`` and
  ``20240623_moatless_claude-3.5-sonnet`` (v2 ``transitions``), ``20241117_moatless_claude_3_5_sonnet_20241022``
  (v3 ``nodes``; 28 of its blobs are 4 MiB or more and absent from the stored mirror: they are skipped).
* ``gruckion/mini-swe-agent`` @ ``d12a71affd95403b036b2bdbd827349b77bfffb9`` (MIT ``LICENSE.md``, "Copyright (c)
  2025 Kilian A. Lieret and Carlos E. Jimenez"). ``swebench_results/20251118_gemini-3-pro-74pct/trajs``: 500
  mini-swe-agent 1.15.0 runs of Gemini 3 Pro Preview on SWE-bench Verified. Caveat: these files are a copy of the
  official SWE-bench bash-only submission, whose own repository carries no licence; the MIT file covers them
  only nominally.

Selection: one session per SWE-bench instance. Verified instances come from mini-swe-agent; instances only in
Lite come from Moatless, round-robin over the four runs in sorted instance order (each instance takes the next
run in the cycle that has a readable, convertible trajectory for it). ``--limit N --seed S`` keeps a seeded
random subset, stratified by harness and run so that every harness and model stays represented.

Layout: cwd ``/home/dev/<repo>`` (the GitHub repository name of the instance: ``django__django-11099`` ->
``django``), project slug = cwd with ``/`` -> ``-``, git branch ``fix/<instance-id>``, session id = uuid5 of the
source repository, run and instance. Lines carry the envelope of Claude Code 2.1.30 (``parentUuid``,
``isSidechain``, ``userType``, ``cwd``, ``sessionId``, ``version``, ``gitBranch``, ``type``, ``message``,
``uuid``, ``timestamp``); each content block of an assistant turn is a line of its own sharing the message id, as
Claude Code writes them. The first line is a ``summary`` (the issue's first meaningful line) that titles the
session.

Mapping:

* The first user line is the problem statement as a person would paste it (one of a few fixed lead-ins, picked
  by hash, then the statement). Harness system prompts and instructions are never records.
* mini-swe-agent: the text before the ```` ```bash ```` fence (``THOUGHT:`` stripped) is an assistant ``text``
  block; the model's reasoning summary (``extra.response.choices[0].message.reasoning``) a ``thinking`` block;
  the command a ``Bash`` ``tool_use`` ``{"command", "description"}`` (description derived from the command);
  the next user message (``<returncode>..<output>..``) its ``tool_result`` (``is_error`` when the return code
  is not 0 or the command timed out; content ``Exit code N`` + output then, as Claude Code writes it; the
  harness's head/tail elision of long output is kept as a ``... [N characters truncated] ...`` marker). A reply
  the harness rejected (no or several bash blocks) stays as assistant text; the harness's format-error message
  that answered it ("Please always provide EXACTLY ONE action ...") is DROPPED. The last observation (the
  submitted diff) is the result of the submit command.
* Moatless: ``thoughts`` / ``scratch_pad`` / ``reasoning`` -> assistant text; each action -> a ``tool_use``
  with its arguments as input, the output -> ``tool_result``. Tool names: v1 and v2 ``SearchCode``,
  ``IdentifyCode``, ``DecideRelevance``, ``RequestCodeChange`` / ``Finish`` / ``Review`` / ``Reject`` (the
  ``PlanToCode`` choices), ``ClarifyCodeChange``, ``EditCode`` (the edit's file/span/instructions from the
  state, plus the model's ``<replace>`` content); v3 the names the model called (``SemanticSearch``,
  ``FindClass``, ``FindFunction``, ``FindCodeSnippet``, ``ViewCode``, ``str_replace_editor``, ``Finish``,
  ``Reject``), taken from the raw Anthropic response, whose text blocks (``<thoughts>`` tags removed) are the
  assistant text. A v2 ``retry_message`` is an ``is_error`` result; v3 ``expect_correction`` is ``is_error``.
  v3 trajectories are trees (13 of the run's 271 readable files restart from the root): the path from the root
  to the newest node is kept; a node on it that was never executed (a duplicate) keeps its text and loses its
  tool call. An empty result reads "Tool ran without output or errors" ("(Bash completed with no output)" for
  Bash), as in Claude Code.
* When the trajectory has a submission (patch): a last assistant text "Here is the change:" + a diff block.
* Tool results are capped at 30,000 characters and assistant texts at 60,000, Claude Code style: the head
  and ``\\n\\n... [N lines truncated] ...``.

Timestamps: session starts are spread over 2026-01-05 .. 2026-11-20, a few per day, 08:00-19:00 UTC, in the
order of a hash of the session id. Within a session, mini-swe-agent turns keep the real gaps between the
responses' ``created`` times (clamped to 2..300 s); Moatless turns get seeded pseudo-random 5..90 s steps.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import shutil
import sys
import time
import uuid as uuidlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from claude_lines import NumberedLines, base62, cap, format_ts, stable_hash, transcript_path, write_transcript
from mirrors import CorpusError, Mirror, built, corpus_arguments

VERSION = "2.1.30"
RESULT_CAP = 30_000
TEXT_CAP = 60_000
FIRST_DAY = date(2026, 1, 5)
LAST_DAY = date(2026, 11, 20)
DAY_START_H, DAY_END_H = 8, 19

MOATLESS_REPO = "aorwall/moatless-tools"
MOATLESS_COMMIT = "91f874186e8298e5270c00a334c7a962bb4cdfad"
MINI_REPO = "gruckion/mini-swe-agent"
MINI_COMMIT = "d12a71affd95403b036b2bdbd827349b77bfffb9"
MINI_RUN = "20251118_gemini-3-pro-74pct"
MINI_DIR = f"swebench_results/{MINI_RUN}/trajs"
MINI_MODEL = "gemini-3-pro-preview"


@dataclass(frozen=True)
class MoatlessRun:
    name: str
    schema: int
    model: str

    def path(self, instance_id: str) -> str:
        if self.schema == 3:
            return f"evaluations/{self.name}/{instance_id}/trajectory.json"
        return f"evaluations/{self.name}/trajs/{instance_id}.json"


MOATLESS_RUNS = (
    MoatlessRun("20240609_moatless_gpt4o", 1, "gpt-4o"),
    MoatlessRun("20240617_moatless_gpt-4o-2024-05-13", 2, "gpt-4o-2024-05-13"),
    MoatlessRun("20240623_moatless_claude-3.5-sonnet", 2, "claude-3-5-sonnet-20240620"),
    MoatlessRun("20241117_moatless_claude_3_5_sonnet_20241022", 3, "claude-3-5-sonnet-20241022"),
)

PROMPT_LEADS = (
    "Please fix this issue in the repo:",
    "Can you fix this {repo} issue?",
    "Here's a bug report from our tracker, please fix it:",
    "Fix this issue:",
    "We got this report against {repo}. Please investigate and fix it:",
)
GENERIC_HEADINGS = {
    "description", "bug report", "describe the bug", "summary", "bug summary", "issue", "problem", "bug",
    "feature request", "bug description", "issue description", "the problem", "problem description",
    "is your feature request related to a problem? please describe.", "what happened?", "what happened",
    "bug summary:", "code for reproduction", "steps to reproduce", "environment", "motivation",
}


# ---------------------------------------------------------------------------------------------------- reading


# ---------------------------------------------------------------------------------------------------- model


@dataclass
class Result:
    text: str
    is_error: bool = False
    bash: bool = False
    exit_code: int = 0
    timed_out: bool = False


@dataclass
class Turn:
    """One assistant message: optional thinking and text, an optional tool call and that call's result."""

    text: str = ""
    thinking: str = ""
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)
    result: Result | None = None
    usage: dict[str, int] | None = None
    created: float | None = None  # unix seconds of the response, when the source has it


@dataclass
class Convo:
    source_repo: str
    commit: str
    run: str
    harness: str
    model: str
    instance_id: str
    problem: str
    turns: list[Turn]
    submission: str = ""
    notes: Counter[str] = field(default_factory=Counter)

    @property
    def key(self) -> tuple[str, str]:
        return self.harness, self.run


def repo_of(instance_id: str) -> str:
    """``django__django-11099`` -> ``django``; ``scikit-learn__scikit-learn-10297`` -> ``scikit-learn``."""
    return instance_id.split("__", 1)[-1].rsplit("-", 1)[0]


def _thoughts(text: str) -> str:
    text = re.sub(r"</?thoughts>", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _pascal(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\W]+", name) if p) or "Tool"


def _pop_thoughts(args: dict[str, Any]) -> str:
    parts = []
    for key in ("scratch_pad", "thoughts", "reasoning"):
        value = args.pop(key, None)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip())
    return "\n\n".join(parts)


def _no_nones(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if v is not None}


# ---------------------------------------------------------------------------------------------------- mini-swe-agent

BASH_RE = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
FORMAT_ERROR = "Please always provide EXACTLY ONE action"
TIMEOUT_RE = re.compile(r"^The last command <command>(.*?)</command> timed out and has been killed\.\n"
                        r"The output of the command was:\n ?<output>\n?(.*?)\n?</output>", re.DOTALL)


def parse_observation(text: str) -> Result:
    """A mini-swe-agent observation (``<returncode>..`` + output, a timeout notice, or raw text) as a Bash result."""
    m = TIMEOUT_RE.match(text)
    if m:
        return Result(m.group(2), is_error=True, bash=True, exit_code=124, timed_out=True)
    m = re.match(r"<returncode>(-?\d+)</returncode>\n?", text)
    if not m:
        return Result(text, bash=True)
    code, rest = int(m.group(1)), text[m.end():]
    out = re.match(r"<output>\n?(.*)</output>\s*$", rest, re.DOTALL)
    if out:
        output = out.group(1)
    elif "<output_head>" in rest:
        head = re.search(r"<output_head>\n(.*?)\n</output_head>", rest, re.DOTALL)
        tail = re.search(r"<output_tail>\n(.*?)\n</output_tail>", rest, re.DOTALL)
        elided = re.search(r"<elided_chars>\n(\d+) characters elided", rest)
        output = ((head.group(1) if head else "")
                  + f"\n\n... [{elided.group(1) if elided else '?'} characters truncated] ...\n\n"
                  + (tail.group(1) if tail else ""))
    else:
        output = rest
    return Result(output, is_error=code != 0, bash=True, exit_code=code)


def _strip_thought(text: str) -> str:
    text = text.strip()
    if text.startswith("THOUGHT:"):
        text = text[len("THOUGHT:"):]
    return text.strip()


def convert_mini(data: dict[str, Any], instance_id: str) -> Convo:
    msgs = data["messages"]
    first_user = next(m for m in msgs if m.get("role") == "user")
    content = first_user["content"]
    m = re.search(r"Consider the following PR description:\n(.*?)\n</pr_description>", content, re.DOTALL)
    if not m:
        raise ValueError("no <pr_description> in the first user message")
    convo = Convo(MINI_REPO, MINI_COMMIT, MINI_RUN, "mini-swe-agent", MINI_MODEL, instance_id, m.group(1).strip(),
                  [], str((data.get("info") or {}).get("submission") or ""))
    i = msgs.index(first_user) + 1
    while i < len(msgs):
        msg = msgs[i]
        if msg.get("role") != "assistant":
            convo.notes["stray user messages dropped"] += 1
            i += 1
            continue
        text = msg["content"] if isinstance(msg["content"], str) else json.dumps(msg["content"])
        nxt = msgs[i + 1] if i + 1 < len(msgs) and msgs[i + 1].get("role") == "user" else None
        nxt_text = nxt["content"] if nxt is not None and isinstance(nxt.get("content"), str) else ""
        response = ((msg.get("extra") or {}).get("response") or {})
        choice = (response.get("choices") or [{}])[0].get("message") or {}
        usage = response.get("usage") or {}
        turn = Turn(thinking=str(choice.get("reasoning") or "").strip(),
                    created=float(response["created"]) if response.get("created") else None,
                    usage={"input_tokens": int(usage.get("prompt_tokens") or 0)
                           - int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0),
                           "cache_read_input_tokens": int((usage.get("prompt_tokens_details") or {})
                                                          .get("cached_tokens") or 0),
                           "output_tokens": int(usage.get("completion_tokens") or 0)} if usage else None)
        commands = BASH_RE.findall(text)
        if len(commands) != 1 or nxt_text.startswith(FORMAT_ERROR):
            turn.text = _strip_thought(text)
            convo.notes["rejected replies kept as text"] += 1
            if nxt_text.startswith(FORMAT_ERROR):
                convo.notes["format errors dropped"] += 1
                i += 2
            else:
                i += 1
        else:
            fence = BASH_RE.search(text)
            assert fence is not None
            before, after = _strip_thought(text[:fence.start()]), text[fence.end():].strip()
            turn.text = before + (f"\n\n{after}" if after else "")
            command = fence.group(1).strip("\n")
            turn.tool, turn.tool_input = "Bash", {"command": command, "description": describe_command(command)}
            if nxt is not None:
                turn.result = parse_observation(nxt_text)
                if turn.result.timed_out:
                    convo.notes["timeouts"] += 1
                i += 2
            else:
                i += 1
        convo.turns.append(turn)
    return convo


def describe_command(command: str) -> str:
    """A short Claude-style ``description`` of a shell command (Claude Code's Bash tool asks for one)."""
    c = command.strip()
    c = re.sub(r"^(cd\s+\S+\s*(&&|;)\s*)+", "", c)
    first = c.split("\n", 1)[0].strip()
    if "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in first:
        return "Submit the final diff"
    m = re.match(r"cat\s+(?:<<-?\s*['\"]?\w+['\"]?\s*>\s*(\S+)|>\s*(\S+)\s*<<)", first)
    if m:
        return f"Write {os.path.basename((m.group(1) or m.group(2)).strip(chr(39) + chr(34)))}"
    words = [w for w in first.split() if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
    if not words:
        return "Run a shell command"
    prog = os.path.basename(words[0])
    args = [w for w in words[1:] if not w.startswith("-")]
    target = os.path.basename(args[-1].strip("'\"")) if args else ""
    if prog in ("python", "python3"):
        if "-m" in words and "pytest" in words:
            return "Run the tests"
        if "-c" in words:
            return "Run a Python snippet"
        return f"Run {target}" if target else "Run Python"
    if prog in ("pytest", "tox") or "runtests" in prog:
        return "Run the tests"
    if prog == "git":
        sub = args[0] if args else ""
        return {"diff": "Show the git diff", "status": "Check git status", "log": "Show git history",
                "show": "Show a git object", "stash": "Stash changes", "checkout": "Restore files from git",
                "grep": "Search the tracked files"}.get(sub, f"Run git {sub}".strip())
    if prog == "sed":
        return f"Edit {target}" if "-i" in words else f"View lines of {target}".strip()
    if prog == "nl":
        return f"View {target} with line numbers" if target else "Number lines"
    fixed = {"ls": "List files", "find": "Find files", "grep": "Search the code", "rg": "Search the code",
             "egrep": "Search the code", "pip": "Install packages", "mkdir": "Create a directory",
             "rm": "Remove files", "cp": "Copy files", "mv": "Move files", "echo": "Print text",
             "tree": "Show the tree", "wc": "Count lines", "diff": "Compare files", "patch": "Apply a patch",
             "touch": "Create a file",
             "chmod": "Change permissions", "pwd": "Show the working directory", "which": "Locate a program"}
    if prog in fixed:
        return fixed[prog]
    if prog in ("cat", "head", "tail", "less", "more"):
        verb = {"head": "Show the start of", "tail": "Show the end of"}.get(prog, "Show")
        return f"{verb} {target}" if target else "Show output"
    return f"Run {prog}"


# ---------------------------------------------------------------------------------------------------- Moatless

V1_NAMES = {"search": "SearchCode", "identify": "IdentifyCode", "request_for_change": "RequestCodeChange",
            "search_replace": "EditCode", "specify_lines": "ClarifyCodeChange", "finish": "Finish", "reject": "Reject"}
PLAN_NAMES = {"modify": "RequestCodeChange", "finish": "Finish", "review": "Review", "reject": "Reject"}
STATE_KEYS = ("file_path", "span_id", "start_line", "end_line", "instructions")


def _spans(items: list[Any]) -> str:
    files: dict[str, list[str]] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        path = str(item.get("file_path") or "?")
        if isinstance(item.get("spans"), list):
            ids = [str(s.get("span_id")) for s in item["spans"] if isinstance(s, dict)]
        elif isinstance(item.get("span_ids"), list):
            ids = [str(s) for s in item["span_ids"]]
        else:
            ids = [str(item.get("span_id"))] if item.get("span_id") is not None else []
        files.setdefault(path, []).extend(ids)
    return "\n".join(f"{path}: {', '.join(dict.fromkeys(ids))}" for path, ids in files.items())


def render_output(out: Any) -> str:
    """A Moatless v1/v2 action output as the text an agent would see."""
    if out is None:
        return ""
    if isinstance(out, str):
        return out
    if not isinstance(out, dict):
        return json.dumps(out, ensure_ascii=False)
    parts: list[str] = []
    for key in ("message", "response"):
        if isinstance(out.get(key), str) and out[key].strip():
            parts.append(out[key].strip("\n"))
    spans = out.get("ranked_spans") or out.get("file_context")
    if isinstance(spans, list) and spans:
        listing = _spans(spans)
        parts.append(listing if parts else f"Found {len(spans)} code spans:\n{listing}")
    if "instructions" in out or ("file_path" in out and "span_id" in out):
        lines = [f"{k}: {out[k]}" for k in ("file_path", "span_id") if out.get(k) is not None]
        if out.get("start_line") is not None:
            lines.append(f"lines: {out.get('start_line')}-{out.get('end_line')}")
        if out.get("instructions"):
            lines.append(f"instructions: {out['instructions']}")
        parts.append("\n".join(lines))
    if isinstance(out.get("diff"), str) and out["diff"].strip():
        parts.append(out["diff"].rstrip("\n"))
    for key in ("error", "errors", "verification_errors", "lint_messages"):
        value = out.get(key)
        if value:
            parts.append(f"{key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}")
    return "\n\n".join(parts)


def _estimate_usage(turns: list[Turn], problem: str) -> None:
    """Token counts for turns without them (v1): about 4 characters a token, the context growing."""
    context = len(problem) // 4 + 1500
    for turn in turns:
        out = (len(turn.text) + len(json.dumps(turn.tool_input))) // 4 + 8
        if turn.usage is None:
            turn.usage = {"input_tokens": context, "cache_read_input_tokens": 0, "output_tokens": out}
        context += out + (len(turn.result.text) // 4 if turn.result else 0)


def convert_moatless_v1(data: dict[str, Any], run: MoatlessRun, instance_id: str) -> Convo:
    convo = Convo(MOATLESS_REPO, MOATLESS_COMMIT, run.name, "moatless", run.model, instance_id,
                  str(data["input"]["problem_statement"]).strip(), [], str(data["info"].get("submission") or ""))
    for step in data["steps"]:
        for action in step.get("actions") or []:
            args = _no_nones(dict(action.get("input") or {}))
            text = _pop_thoughts(args)
            out = action.get("output")
            error = isinstance(out, dict) and bool(out.get("error"))
            convo.turns.append(Turn(text=text, tool=V1_NAMES.get(action["name"], _pascal(action["name"])),
                                    tool_input=args, result=Result(render_output(out), is_error=error)))
    _estimate_usage(convo.turns, convo.problem)
    return convo


def _v2_tool(state_name: str, args: dict[str, Any], state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from_state = {k: state[k] for k in STATE_KEYS if state.get(k) is not None}
    if state_name == "PlanToCode":
        sub = args.pop("action", None)
        if isinstance(sub, dict):
            merged = {**sub, **args}
            if "file_path" in sub:
                return "RequestCodeChange", merged
            return ("Reject" if sub.get("reject") else "Finish"), merged
        return PLAN_NAMES.get(str(sub), _pascal(str(sub))), args
    if state_name == "EditCode":
        return "EditCode", {**from_state, **args}
    if state_name == "ClarifyCodeChange":
        return ("Reject" if args.get("reject") else "ClarifyCodeChange"), {**from_state, **args}
    return state_name, args


def convert_moatless_v2(data: dict[str, Any], run: MoatlessRun, instance_id: str) -> Convo:
    convo = Convo(MOATLESS_REPO, MOATLESS_COMMIT, run.name, "moatless", run.model, instance_id,
                  str(data["initial_message"]).strip(), [], str(data["info"].get("submission") or ""))
    for transition in data["transitions"]:
        for action in transition.get("actions") or []:
            args = _no_nones(dict(action.get("action") or {}))
            text = _pop_thoughts(args)
            name, args = _v2_tool(transition["name"], args, transition.get("state") or {})
            if action.get("output") is None and action.get("retry_message"):
                result = Result(str(action["retry_message"]), is_error=True)
            else:
                result = Result(render_output(action.get("output")))
            usage = None
            if action.get("input_tokens") is not None:
                usage = {"input_tokens": int(action["input_tokens"]), "cache_read_input_tokens": 0,
                         "output_tokens": int(action.get("output_tokens") or 0)}
            convo.turns.append(Turn(text=text, tool=name, tool_input=args, result=result, usage=usage))
    _estimate_usage(convo.turns, convo.problem)
    return convo


def convert_moatless_v3(data: dict[str, Any], run: MoatlessRun, instance_id: str) -> Convo:
    nodes = {n["node_id"]: n for n in data["nodes"]}
    root = next(n for n in data["nodes"] if n.get("parent_id") is None)
    problem = re.sub(r"^\s*<task>\s*|\s*</task>\s*$", "", str(root.get("message") or ""))
    convo = Convo(MOATLESS_REPO, MOATLESS_COMMIT, run.name, "moatless", run.model, instance_id, problem.strip(), [])
    path, node = [], nodes[max(nodes)]
    while node is not root:
        path.append(node)
        node = nodes[node["parent_id"]]
    if len(nodes) > len(path) + 1:
        convo.notes["branches left out (v3 restarts)"] += 1
    for node in reversed(path):
        action = dict(node.get("action") or {})
        response = ((node.get("completions") or {}).get("build_action") or {}).get("response") or {}
        blocks = response.get("content") if isinstance(response, dict) else None
        blocks = blocks if isinstance(blocks, list) else []
        text = _thoughts("\n\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text"))
        call = next((b for b in blocks if b.get("type") == "tool_use"), None)
        if call is not None:
            name, args = str(call.get("name")), _no_nones(dict(call.get("input") or {}))
        else:
            text = text or _thoughts(str(action.get("scratch_pad") or ""))
            cls = str(action.pop("action_args_class", "Action")).rsplit(".", 1)[-1]
            name = re.sub(r"(Args|ActionArguments|Arguments)$", "", cls) or "Action"
            args = _no_nones({k: v for k, v in action.items() if k != "scratch_pad"})
        if not text:
            text = _thoughts(str(action.get("scratch_pad") or ""))
        usage = response.get("usage") if isinstance(response, dict) else None
        turn = Turn(text=text, usage={"input_tokens": int(usage.get("input_tokens") or 0),
                                      "cache_read_input_tokens": int(usage.get("cache_read_input_tokens") or 0),
                                      "output_tokens": int(usage.get("output_tokens") or 0)} if usage else None)
        observation = node.get("observation")
        if isinstance(observation, dict):
            turn.tool, turn.tool_input = name, args
            turn.result = Result(str(observation.get("message") or ""),
                                 is_error=bool(observation.get("expect_correction")))
        else:
            convo.notes["unexecuted v3 actions kept as text"] += 1
        if turn.text or turn.tool:
            convo.turns.append(turn)
    _estimate_usage(convo.turns, convo.problem)
    return convo


CONVERTERS: dict[int, Callable[[dict[str, Any], MoatlessRun, str], Convo]] = {
    1: convert_moatless_v1, 2: convert_moatless_v2, 3: convert_moatless_v3}


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
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"https://github.com/{convo.source_repo}/{convo.run}/"
                                                    f"{convo.instance_id}"))


def spread_starts(session_ids: list[str]) -> dict[str, datetime]:
    """A distinct start per session: hash order, spread evenly over the days, a few a day in working hours."""
    order = sorted(session_ids, key=lambda s: (stable_hash("start", s), s))
    days = (LAST_DAY - FIRST_DAY).days + 1
    by_day: dict[int, list[str]] = defaultdict(list)
    for k, sid in enumerate(order):
        by_day[k * days // max(1, len(order))].append(sid)
    starts: dict[str, datetime] = {}
    window = (DAY_END_H - DAY_START_H) * 3600
    for day, sids in by_day.items():
        base = datetime.combine(FIRST_DAY + timedelta(days=day), datetime.min.time(), UTC)
        base += timedelta(hours=DAY_START_H)
        slot = window / len(sids)
        for i, sid in enumerate(sids):
            jitter = (stable_hash("jitter", sid) % 1_000_000) / 1_000_000 * slot * 0.8
            starts[sid] = base + timedelta(seconds=round(slot * i + jitter, 3))
    return starts


class SessionWriter(NumberedLines):
    """Claude Code transcript lines for one converted trajectory."""

    def __init__(self, convo: Convo, session_id: str, start: datetime):
        self.convo = convo
        self.session_id = session_id
        self.repo = repo_of(convo.instance_id)
        self.cwd = f"/home/dev/{self.repo}"
        self.branch = f"fix/{convo.instance_id}"
        self.rng = random.Random(stable_hash("steps", session_id))
        self.now = start
        self.lines: list[dict[str, Any]] = []
        self.last_uuid: str | None = None
        self.n = 0
        self.counts: Counter[str] = Counter()

    def _line(self, kind: str, message: dict[str, Any], at: datetime, **extra: Any) -> str:
        uid = self._id(kind)
        self.lines.append({"parentUuid": self.last_uuid, "isSidechain": False, "userType": "external",
                           "cwd": self.cwd, "sessionId": self.session_id, "version": VERSION,
                           "gitBranch": self.branch, "type": kind, "message": message, "uuid": uid,
                           "timestamp": format_ts(at), **extra})
        self.last_uuid = uid
        return uid

    def _assistant(self, blocks: list[dict[str, Any]], stop: str, usage: dict[str, int] | None,
                   at: datetime) -> tuple[str, datetime]:
        self.counts["turns"] += 1
        msg_id = "msg_01" + base62(f"{self.session_id}:msg:{self.counts['turns']}", 22)
        request = "req_011C" + base62(f"{self.session_id}:req:{self.counts['turns']}", 20)
        use = usage or {"input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0}
        usage_obj = {"input_tokens": use.get("input_tokens", 0), "cache_creation_input_tokens": 0,
                     "cache_read_input_tokens": use.get("cache_read_input_tokens", 0),
                     "output_tokens": use.get("output_tokens", 0), "service_tier": "standard"}
        uid = ""
        for k, block in enumerate(blocks):
            message = {"id": msg_id, "type": "message", "role": "assistant", "model": self.convo.model,
                       "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage_obj}
            uid = self._line("assistant", message, at + timedelta(seconds=0.35 * k), requestId=request)
        return uid, at + timedelta(seconds=0.35 * max(0, len(blocks) - 1))

    def _gap(self, turn: Turn, previous: float | None, first: bool) -> float:
        if self.convo.harness == "mini-swe-agent":
            if turn.created is not None and previous is not None:
                return min(300.0, max(2.0, turn.created - previous))
            return self.rng.uniform(4.0, 25.0) if first else self.rng.uniform(5.0, 40.0)
        return self.rng.uniform(5.0, 90.0)

    def build(self) -> list[dict[str, Any]]:
        convo = self.convo
        lead = PROMPT_LEADS[stable_hash("lead", self.session_id) % len(PROMPT_LEADS)].format(repo=self.repo)
        problem = convo.problem.replace("\r\n", "\n").strip()  # SWE-bench keeps GitHub's CRLFs; a paste has none
        self._line("user", {"role": "user", "content": f"{lead}\n\n{problem}"}, self.now)
        self.counts["user"] += 1
        previous: float | None = None
        for index, turn in enumerate(convo.turns):
            self.now += timedelta(seconds=self._gap(turn, previous, index == 0))
            previous = turn.created if turn.created is not None else previous
            blocks: list[dict[str, Any]] = []
            if turn.thinking:
                signature = base64.b64encode(hashlib.sha256(f"{self.session_id}:{index}".encode()).digest()).decode()
                blocks.append({"type": "thinking", "thinking": cap(turn.thinking, TEXT_CAP), "signature": signature})
                self.counts["thinking"] += 1
            if turn.text:
                blocks.append({"type": "text", "text": cap(turn.text, TEXT_CAP)})
                self.counts["assistant_text"] += 1
            call_id = ""
            if turn.tool:
                call_id = "toolu_01" + base62(f"{self.session_id}:call:{index}", 22)
                blocks.append({"type": "tool_use", "id": call_id, "name": turn.tool, "input": turn.tool_input})
                self.counts["tool_use"] += 1
            if not blocks:
                continue
            uid, last = self._assistant(blocks, "tool_use" if turn.tool else "end_turn", turn.usage, self.now)
            if turn.tool and turn.result is not None:
                limit = 0.8 if convo.harness == "mini-swe-agent" else 3.0
                self._result(call_id, uid, turn.result, last + timedelta(seconds=self.rng.uniform(0.15, limit)))
        if convo.submission.strip():
            self.now += timedelta(seconds=self.rng.uniform(3.0, 15.0))
            text = f"Here is the change:\n```diff\n{convo.submission.strip(chr(10))}\n```"
            self._assistant([{"type": "text", "text": cap(text, TEXT_CAP)}], "end_turn", None, self.now)
            self.counts["assistant_text"] += 1
        return [{"type": "summary", "summary": title_of(convo.problem), "leafUuid": self.last_uuid}, *self.lines]

    def _result(self, call_id: str, source_uuid: str, result: Result, at: datetime) -> None:
        output = result.text
        tool_use_result: Any
        if result.bash:
            if result.timed_out:
                content = cap(f"Command timed out after 1m 0s\n{output}".rstrip("\n"), RESULT_CAP)
                tool_use_result = f"Error: {content}"
            elif result.is_error:
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
        self.now = max(self.now, at)


# ---------------------------------------------------------------------------------------------------- corpus


@dataclass
class Candidate:
    harness: str
    run: str
    instance_id: str
    convo: Convo | None = None  # converted already (Moatless) or on demand (mini-swe-agent)


def _load_json(blob: bytes | None) -> dict[str, Any] | None:
    if blob is None:
        return None
    try:
        data = json.loads(blob)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _all_preds(mirror: Mirror, run: MoatlessRun) -> dict[str, str]:
    blob = mirror.read(f"evaluations/{run.name}/all_preds.jsonl")
    patches: dict[str, str] = {}
    for line in (blob or b"").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("instance_id"):
            patches[str(row["instance_id"])] = str(row.get("model_patch") or "")
    return patches


def moatless_candidates(mirror: Mirror, exclude: set[str], stats: Counter[str]) -> list[Candidate]:
    """One converted Moatless session per Lite instance not in ``exclude``, runs taken round-robin."""
    available: dict[str, dict[str, str]] = {}
    for run in MOATLESS_RUNS:
        ids: dict[str, str] = {}
        for path in mirror.ls(f"evaluations/{run.name}/"):
            m = (re.match(rf"evaluations/{re.escape(run.name)}/([^/]+)/trajectory\.json$", path) if run.schema == 3
                 else re.match(rf"evaluations/{re.escape(run.name)}/trajs/([^/]+)\.json$", path))
            if m:
                ids[m.group(1)] = path
        available[run.name] = ids
    lite = sorted(set().union(*(set(v) for v in available.values())))
    stats["lite instances"] = len(lite)
    patches = {run.name: _all_preds(mirror, run) for run in MOATLESS_RUNS}
    out: list[Candidate] = []
    pointer = 0
    for instance_id in lite:
        if instance_id in exclude:
            continue
        for step in range(len(MOATLESS_RUNS)):
            k = (pointer + step) % len(MOATLESS_RUNS)
            run = MOATLESS_RUNS[k]
            blob_path = available[run.name].get(instance_id)
            if blob_path is None:
                continue
            data = _load_json(mirror.read(blob_path))
            if data is None:
                stats[f"skipped (missing/unreadable blob): {run.name}"] += 1
                continue
            try:
                convo = CONVERTERS[run.schema](data, run, instance_id)
            except (KeyError, TypeError, ValueError, StopIteration, AttributeError) as exc:
                stats[f"skipped (unparsable: {type(exc).__name__}): {run.name}"] += 1
                continue
            if not any(t.tool for t in convo.turns):
                stats[f"skipped (no tool calls): {run.name}"] += 1
                continue
            if not convo.submission.strip():
                convo.submission = patches[run.name].get(instance_id, "")
            out.append(Candidate("moatless", run.name, instance_id, convo))
            pointer = k + 1
            break
        else:
            stats["lite-only instances without a usable Moatless run"] += 1
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
    return sorted(chosen, key=lambda c: (c.instance_id, c.harness))


def build(out: Path, mirrors: Path, limit: int | None, seed: int, force: bool) -> dict[str, Any]:
    t0 = time.monotonic()
    projects = out / ".claude" / "projects"
    manifest_path = out / "manifest.json"
    if projects.exists() or manifest_path.exists():
        if not force:
            raise CorpusError(f"{out} already holds a corpus (.claude/projects or manifest.json): pass --force")
        shutil.rmtree(projects, ignore_errors=True)
        manifest_path.unlink(missing_ok=True)
    moatless = Mirror(mirrors, MOATLESS_REPO, MOATLESS_COMMIT)
    mini = Mirror(mirrors, MINI_REPO, MINI_COMMIT)
    stats: Counter[str] = Counter()
    try:
        mini_paths = {}
        for path in mini.ls(f"{MINI_DIR}/"):
            m = re.match(rf"{re.escape(MINI_DIR)}/([^/]+)/\1\.traj\.json$", path)
            if m:
                mini_paths[m.group(1)] = path
        if not mini_paths:
            raise CorpusError(f"no trajectories under {MINI_DIR} in {MINI_REPO}@{MINI_COMMIT}")
        stats["verified instances"] = len(mini_paths)
        cands = [Candidate("mini-swe-agent", MINI_RUN, i) for i in sorted(mini_paths)]
        cands += moatless_candidates(moatless, set(mini_paths), stats)
        chosen = stratified(cands, limit, seed)
        convos: list[Convo] = []
        for c in chosen:
            if c.convo is None:
                data = _load_json(mini.read(mini_paths[c.instance_id]))
                try:
                    if data is None:
                        raise ValueError("missing or unreadable blob")
                    c.convo = convert_mini(data, c.instance_id)
                except (KeyError, TypeError, ValueError, StopIteration, AttributeError) as exc:
                    stats[f"skipped mini-swe-agent {c.instance_id}: {exc}"] += 1
                    continue
            convos.append(c.convo)
    finally:
        moatless.close()
        mini.close()
    t_read = time.monotonic() - t0

    ids = {session_id_of(c): c for c in convos}
    starts = spread_starts(list(ids))
    manifest: list[dict[str, Any]] = []
    total_lines = total_bytes = 0
    notes: Counter[str] = Counter()
    for sid in sorted(ids, key=lambda s: (starts[s], s)):
        convo = ids[sid]
        writer = SessionWriter(convo, sid, starts[sid])
        lines = writer.build()
        file = transcript_path(out, writer.cwd, sid)
        total_lines += len(lines)
        total_bytes += write_transcript(file, lines)
        notes.update(convo.notes)
        manifest.append({
            "session_id": sid, "path": str(file.relative_to(out)), "source_repo": convo.source_repo,
            "commit": convo.commit, "run": convo.run, "harness": convo.harness, "model": convo.model,
            "instance_id": convo.instance_id, "repo": writer.repo, "cwd": writer.cwd,
            "start": lines[1]["timestamp"], "end": lines[-1]["timestamp"],
            "records": {k: writer.counts[k] for k in ("user", "assistant_text", "tool_use", "tool_result",
                                                      "thinking")},
        })
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return {"manifest": manifest, "stats": stats, "notes": notes, "lines": total_lines, "bytes": total_bytes,
            "read_seconds": t_read, "seconds": time.monotonic() - t0}


def print_summary(report: dict[str, Any], out: Path) -> None:
    manifest = report["manifest"]
    print(f"{len(manifest)} sessions -> {out / '.claude' / 'projects'} (manifest: {out / 'manifest.json'})")
    by_source = Counter((m["harness"], m["run"], m["model"]) for m in manifest)
    print("sessions per harness / run / model:")
    for (harness, run, model), n in sorted(by_source.items()):
        print(f"  {n:5d}  {harness:15s} {run:46s} {model}")
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
    ap = corpus_arguments(__doc__, "output directory (gets .claude/projects/ and manifest.json)")
    ap.add_argument("--limit", type=int, default=None, help="keep a seeded, stratified subset of N sessions")
    ap.add_argument("--seed", type=int, default=0, help="seed of the --limit subset (default 0)")
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    report = built("agent_corpus", lambda: build(args.out, args.mirrors, args.limit, args.seed, args.force))
    if report is None:
        return 2
    print_summary(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
