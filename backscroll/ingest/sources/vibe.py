"""Mistral Vibe (PyPI ``mistral-vibe``) sessions, under ``~/.vibe/logs/session`` (``$VIBE_HOME/logs/session``;
``$VIBE_SESSION_LOGGING__SAVE_DIR`` moves them).

Read from mistral-vibe 2.26.1 and 3.0.3 (their code, and sessions each wrote itself, run offline). Two formats:

* Vibe 2 (``session_<UTC time>_<id8>/``): ``messages.jsonl``, one OpenAI-style message a line (no times, no system
  prompt), appended and written anew after a rewind, and ``meta.json`` (the session's id, its parent's, start and
  end, work dir, title). A subagent's session is a folder of its own inside its parent's, under ``agents/``.
* Vibe 3 (the unified store, ``unified/<id>/``, a subagent's ``unified/child-<hex>/``): read by ``vibe_unified``.

Both are read whole when they change (a store is claimed by its ``CURRENT`` file). Vibe 2's records: the person's
prompts (a line Vibe wrote itself, ``injected``, is the harness's, and a subagent's prompts, its parent's, the
agent's), their ``!`` commands as shell calls, replies, reasoning, the summary a compaction leaves
(``context_boundary``), tool calls and their output (``<tool_error>``, a cancellation or a non-zero exit is an error),
and the answers to ``ask_user_question`` (the person's). A line has no time: each is dated by the save that first
held it (``first_seen``). The ACP log ``~/.vibe/logs/acp/messages.jsonl`` and Vibe 1's single-file sessions are
not sessions here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    ContentError,
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    call_text,
    clean_text,
    failed_exit,
    file_stat,
    first_seen,
    home_root,
    json_lines,
    read_regular,
    time_of,
    with_stats,
)
from backscroll.ingest.sources.vibe_unified import SHELL_TOOLS, answers, read_store, store_stat
from backscroll.ingest.sources.vibe_unified import meta as vibe_meta
from backscroll.types import Record, SessionInfo

MAX_WHOLE_BYTES = 256 * 1024 * 1024
# What Vibe 2 puts before a subagent's task (``prepare_subagent_prompt``): the harness's words, not the task's
_SCRATCHPAD = re.compile(r"Scratchpad directory: [^\n]*\nYou can read and write files here without permission prompts\."
                         r"\n\n(?=\S)")
_FOLDER = re.compile(r"[\w-]+_\d{8}_\d{6}_[0-9a-f]{8}")  # <prefix or agent>_<UTC %Y%m%d_%H%M%S>_<id8>
_FAILED = ("<tool_error>", "<user_cancellation>")


def default_root(env):
    """Vibe's session dir, and the one its config file or ``$VIBE_SESSION_LOGGING__SAVE_DIR`` names besides (what
    was written before they were set stays in the first)."""
    root, origin = home_root(env, "VIBE_HOME", "logs/session", ".vibe/logs/session")
    home = root.parent.parent
    roots = [(root, origin)]
    if env.get("VIBE_SESSION_LOGGING__SAVE_DIR"):
        roots.append((Path(os.path.expanduser(env["VIBE_SESSION_LOGGING__SAVE_DIR"])),
                      "env $VIBE_SESSION_LOGGING__SAVE_DIR"))
    elif (saved := _configured(home / "config.toml")) is not None:
        roots.append((saved, origin))
    return roots


def _configured(config: Path) -> Path | None:
    """``[session_logging] save_dir`` in Vibe's ``config.toml``, when it is set."""
    if not config.is_file():
        return None
    import tomllib

    try:
        table = tomllib.loads(read_regular(config, 1024 * 1024).decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    saved = as_str(as_dict(table.get("session_logging")).get("save_dir")).strip()
    return Path(os.path.expanduser(saved)) if saved else None


def claims(path: Path) -> bool:
    if path.name == "CURRENT":
        return path.parent.parent.name == "unified"
    return path.name == "messages.jsonl" and bool(_FOLDER.fullmatch(path.parent.name))


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.parent.name, "vibe")


def _failed(text: str, output: object) -> bool:
    code = next((as_dict(output).get(k) for k in ("returncode", "exit_code") if k in as_dict(output)), 0)
    return text.lstrip().startswith(_FAILED) or failed_exit(code)


def line_records(lines: list[tuple[int, dict]], info: SessionInfo, runs: list[list]) -> list[Record]:
    """Records of Vibe 2's ``messages.jsonl`` lines ``(number, message)``. Pure."""
    out: list[Record] = []
    sid, cwd, prompted = info.session_id, info.cwd, False
    # Vibe before 2.10 began a compaction's new folder with its summary as a prompt (and wrote no ``injected``)
    summary_first = bool(info.parent_session_id) and not info.is_sidechain
    for n, msg in lines:
        role, ts = msg.get("role"), time_of(runs, n)
        base = f"{sid}:{as_str(msg.get('message_id')) or f'l{n}'}"
        text = clean_text(as_str(msg.get("content")))
        if role == "user":
            shell = as_dict(msg.get("manual_shell"))
            if as_str(shell.get("command")).strip():  # a ``!`` command the person ran
                command, said = shell["command"], as_str(shell.get("output_text") or shell.get("stdout")).strip()
                out.append(Record(f"{base}#0", "tool", "tool", command, n, ts, cwd, "bash", f"{base}!",
                                  command=command))
                if said:
                    out.append(Record(f"{base}#1", "tool", "tool", said, n, ts, cwd, None, f"{base}!",
                                      is_error=_failed("", shell)))
            elif text and (msg.get("context_boundary") == "compaction" or (
                    summary_first and not prompted and "injected" not in msg)):  # (Vibe's summary of what came before)
                out.append(Record(f"{base}#0", "assistant", "summary", text, n, ts, cwd))
            elif text:
                # (a subagent's every prompt is its parent's: its task, and what the parent sent it after)
                author = "harness" if msg.get("injected") is True else "agent" if info.is_sidechain else "human"
                if info.is_sidechain and (pad := _SCRATCHPAD.match(text)):
                    out.append(Record(f"{base}#h", "user", "text", pad.group(0).strip(), n, ts, cwd, author="harness"))
                    text = text[pad.end():]
                out.append(Record(f"{base}#0", "user", "text", text, n, ts, cwd, author=author))
            prompted = True
        elif role == "assistant":
            thought = clean_text(as_str(msg.get("reasoning_content")))
            if thought:
                out.append(Record(f"{base}#r", "assistant", "reasoning", thought, n, ts, cwd))
            if text:
                out.append(Record(f"{base}#0", "assistant", "text", text, n, ts, cwd))
            for k, call in enumerate(map(as_dict, as_list(msg.get("tool_calls")))):
                fn, call_id = as_dict(call.get("function")), as_str(call.get("id"))
                name = as_str(fn.get("name")) or "tool"
                body, command = call_text(name, fn.get("arguments"), SHELL_TOOLS)
                key = f"{sid}:{call_id}" if call_id else f"{base}#c{k}"
                out.append(Record(key, "tool", "tool", body, n, ts, cwd, name, call_id or None, command=command))
        elif role == "tool":
            call_id = as_str(msg.get("tool_call_id"))
            output = as_dict(msg.get("tool_result")).get("output")
            key = f"{sid}:{call_id}.result" if call_id else f"{base}#t"
            if text:
                out.append(Record(key, "tool", "tool", text, n, ts, cwd, None, call_id or None,
                                  is_error=_failed(text, output)))
            said = answers(output) if msg.get("name") == "ask_user_question" else ""
            if said:
                out.append(Record(f"{key}.answer", "user", "text", said, n, ts, cwd, author="human"))
    return out


def _read_folder(path: Path, state: dict) -> WholeRead:
    meta = vibe_meta(path.parent)
    sid = as_str(meta.get("session_id")).strip() or path.parent.name
    parent = as_str(meta.get("parent_session_id")).strip() or None
    title = as_str(meta.get("title")).strip() or None
    cwd = as_str(as_dict(meta.get("environment")).get("working_directory")) or as_str(meta.get("origin_directory"))
    info = SessionInfo(sid, "vibe", cwd=cwd or None, title=title, parent_session_id=parent,
                       is_sidechain=parent is not None and path.parent.parent.name == "agents")
    lines, skipped = json_lines(read_regular(path, MAX_WHOLE_BYTES),
                                lambda msg: msg.get("role") in ("user", "assistant", "tool", "system"),
                                "a message with a role")
    count = lines[-1][0] if lines else 0
    runs = first_seen(state.get("runs"), count, normalize_timestamp(meta.get("start_time")),
                      normalize_timestamp(meta.get("end_time")) or normalize_timestamp(
                          os.stat(path).st_mtime_ns // 1_000_000))
    return WholeRead([SourceUnit(str(path), info, line_records(lines, info, runs), skipped)], {"runs": runs})


def read_whole(path: Path, state: dict) -> WholeRead:
    if path.name == "CURRENT":
        try:
            return read_store(path.parent)
        except (KeyError, TypeError, ValueError) as exc:  # (a store of a format minor this version does not know)
            raise ContentError(f"not a Vibe session store this version reads: {exc}") from None
    return _read_folder(path, state)


def _stat(path: Path) -> tuple[int, int]:
    if path.name == "CURRENT":
        return store_stat(path)
    size, mtime = file_stat(path)
    return with_stats(size, mtime, [path.parent / "meta.json"])


AGENT = Agent("vibe", default_root, claims, session_for, read_whole=read_whole, stat=_stat, shell_tools=SHELL_TOOLS,
              shares_root=True)
