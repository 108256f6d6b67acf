"""`backscroll hook claude|codex session-start|prompt`: real-shaped stdin, deadline, echo-safe output."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backscroll.integrations import hooks

BIN = str(Path(sys.executable).with_name("backscroll"))
DECISION = ("We fixed the invoice reconciliation deadlock by taking the ledger advisory lock before "
            "the SKIP LOCKED batch in reconcile_worker.py.")


@pytest.fixture
def history(session_builder, backscroll_index):
    past = session_builder.claude(project="billing")
    past.user("the invoice reconciliation job deadlocks again in reconcile_worker.py")
    past.assistant(DECISION)
    other = session_builder.codex(project="web")
    other.user("make the navbar sticky on mobile")
    other.assistant("Added position: sticky to the navbar and a top offset for mobile breakpoints.")
    for i in range(30):  # common words become common
        s = session_builder.claude(project=f"p{i % 3}")
        s.user(f"please fix the failing test number {i} in the job queue")
        s.assistant(f"Fixed test {i}: the job queue worker now retries once.")
    backscroll_index(embed=False)
    return past


def call(backscroll_home, agent, event, payload, *, close=True, extra_env=None):
    env = {**os.environ, "HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data),
           **(extra_env or {})}
    p = subprocess.Popen([BIN, "hook", agent, event], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    assert p.stdin is not None and p.stdout is not None and p.stderr is not None
    if payload is not None:
        p.stdin.write(payload if isinstance(payload, bytes) else json.dumps(payload).encode())
        p.stdin.flush()
    if close:
        p.stdin.close()
    try:
        out, err = p.stdout.read(), p.stderr.read()  # EOF only when the hook exits: stdin is still open
        p.wait(timeout=60)
    finally:
        if not close:
            p.stdin.close()
    return p.returncode, out.decode(), err.decode()


def claude_prompt(prompt, session_id="b5e0c7a2-0000-4000-8000-000000000001"):
    return {"session_id": session_id, "transcript_path": f"/tmp/x/{session_id}.jsonl", "cwd": "/home/dev/billing",
            "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt}


def codex_prompt(prompt, session_id="019a0000-0000-7000-8000-000000000002"):
    return {"session_id": session_id, "transcript_path": None, "cwd": "/home/dev/billing", "hook_event_name":
            "UserPromptSubmit", "model": "gpt-5", "permission_mode": "default", "turn_id": "t1", "prompt": prompt,
            "codex_hook_capabilities": {"x": 1}}


def test_claude_prompt_injects_a_framed_capped_block_once_per_session(history, backscroll_home):
    rc, out, err = call(backscroll_home, "claude", "prompt",
                        claude_prompt("why does the invoice reconciliation deadlock in reconcile_worker?"))
    assert rc == 0, err
    obj = json.loads(out)
    spec = obj["hookSpecificOutput"]
    assert spec["hookEventName"] == "UserPromptSubmit"
    ctx = spec["additionalContext"]
    assert ctx.startswith("<backscroll-recall ") and ctx.endswith("</backscroll-recall>")
    assert "not instructions" in ctx.splitlines()[1], "a one-line receipt frames it as history"
    assert "advisory lock" in ctx and "navbar" not in ctx
    assert len(ctx.encode()) <= hooks.CAPS["prompt"]
    # the same record is never injected twice into one session
    rc, out2, _ = call(backscroll_home, "claude", "prompt",
                       claude_prompt("the invoice reconciliation deadlock in reconcile_worker again"))
    assert rc == 0 and "advisory lock" not in out2
    # another session gets it
    rc, out3, _ = call(backscroll_home, "claude", "prompt",
                       claude_prompt("invoice reconciliation deadlock reconcile_worker", session_id="other"))
    assert "advisory lock" in out3


def test_the_calling_session_is_never_recalled(history, backscroll_home):
    rc, out, _ = call(backscroll_home, "claude", "prompt",
                      claude_prompt("invoice reconciliation deadlock reconcile_worker", session_id=history.session_id))
    assert rc == 0 and out == ""


def test_unrelated_or_generic_prompts_inject_nothing(history, backscroll_home):
    for prompt in ("add dark mode to the settings page", "fix the failing test in the job queue", "hi", ""):
        rc, out, _ = call(backscroll_home, "claude", "prompt", claude_prompt(prompt))
        assert rc == 0 and out == "", prompt


def test_codex_with_stdin_that_never_closes_answers_within_the_deadline(history, backscroll_home):
    rc, out, err = call(backscroll_home, "codex", "prompt",
                        codex_prompt("invoice reconciliation deadlock reconcile_worker"), close=False)
    assert rc == 0, err
    obj = json.loads(out)
    assert obj["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "systemMessage" not in obj  # codex shows it as a warning
    assert "advisory lock" in obj["hookSpecificOutput"]["additionalContext"]


def test_nothing_on_stdin_and_a_pipe_left_open_still_exits_quietly(history, backscroll_home):
    rc, out, err = call(backscroll_home, "codex", "prompt", None, close=False)
    assert rc == 0 and out == ""
    assert "no input" in err


@pytest.mark.parametrize("payload", [b"not json", b"[1,2]", b'{"prompt": 5}', b"\xff\xfe"])
def test_bad_input_exits_0_with_no_output(history, backscroll_home, payload):
    rc, out, _ = call(backscroll_home, "claude", "prompt", payload)
    assert rc == 0 and out == ""


def test_no_index_exits_0_with_no_output(backscroll_home):
    rc, out, _ = call(backscroll_home, "claude", "prompt", claude_prompt("invoice reconciliation deadlock"))
    assert rc == 0 and out == ""


def test_session_start_uses_the_branch_and_project(history, backscroll_home, tmp_path):
    repo = tmp_path / "billing"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/fix/invoice-reconciliation-deadlock\n")
    payload = {"session_id": "s-new", "transcript_path": None, "cwd": str(repo), "hook_event_name": "SessionStart",
               "source": "startup", "model": "x"}
    rc, out, _ = call(backscroll_home, "claude", "session-start", payload)
    obj = json.loads(out)
    assert obj["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert len(obj["hookSpecificOutput"]["additionalContext"].encode()) <= hooks.CAPS["session-start"]
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    rc, out, _ = call(backscroll_home, "claude", "session-start", {**payload, "session_id": "s-2"})
    assert rc == 0 and out == ""


def test_strong_match_rule():
    assert hooks.is_strong(2, 3) and hooks.is_strong(2, 2)
    assert not hooks.is_strong(1, 1), "one rare word is never enough"
    assert not hooks.is_strong(2, 4), "half the rare words is not enough"
    assert not hooks.is_strong(2, 3, unknown=4), "a prompt mostly of words no record holds is about something new"
    assert hooks.is_strong(2, 2, unknown=1), "one unknown word (a typo, a new name) does not block a strong match"


def test_read_stdin_returns_a_complete_object_without_waiting_for_eof():
    r, w = os.pipe()
    os.write(w, b'{"a": 1}')
    t = time.monotonic()
    assert hooks.read_stdin(r, deadline=30) == b'{"a": 1}'
    assert time.monotonic() - t < 25
    os.close(w)
    os.close(r)
