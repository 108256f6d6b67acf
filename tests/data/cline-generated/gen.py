"""Emulates cline/cline v3.89.2 (e1bdeeff) Task.say/ask + MessageStateHandler + disk.ts
serialisation to produce a ui_messages.json / api_conversation_history.json pair.
Cited code: apps/vscode/src/core/task/index.ts (say 828-925, ask 660-790, abortStream 2726-2785,
reasoning 2875-3009), core/task/message-state.ts (addToClineMessages 200-216, updateClineMessage 239-262),
core/storage/disk.ts (saveClineMessages 278-285: JSON.stringify(uiMessages) compact)."""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "1780000000000")
os.makedirs(OUT, exist_ok=True)
T = [1780000000000]
def now(step=700):
    T[0] += step; return T[0]
MI = {"providerId": "anthropic", "modelId": "claude-sonnet-4-5-20250929", "mode": "act"}
ui, api = [], []
def _clean(d): return {k: v for k, v in d.items() if v is not None}   # JSON.stringify drops undefined
def add(msg):                                   # message-state.ts:200-216
    msg["conversationHistoryIndex"] = len(api) - 1
    ui.append(msg)
def update(i, **kw):                            # message-state.ts:239-262 (Object.assign)
    for k, v in kw.items(): ui[i][k] = v
def say(kind, text=None, images=None, files=None, partial=None):   # index.ts:828-925
    last = ui[-1] if ui else None
    if partial is not None:
        upd = last and last.get("partial") and last["type"] == "say" and last.get("say") == kind
        if partial:
            if upd: update(len(ui) - 1, text=text, images=images, files=files, partial=True); return
            add({"ts": now(), "type": "say", "say": kind, "text": text, "images": images, "files": files, "partial": True, "modelInfo": dict(MI)}); return
        if upd: update(len(ui) - 1, text=text, images=images, files=files, partial=False); return
        add({"ts": now(), "type": "say", "say": kind, "text": text, "images": images, "files": files, "modelInfo": dict(MI)}); return
    add({"ts": now(), "type": "say", "say": kind, "text": text, "images": images, "files": files, "modelInfo": dict(MI)})
def ask(kind, text=None, partial=None):         # index.ts:660-790 (no modelInfo on asks)
    last = ui[-1] if ui else None
    if partial is not None:
        upd = last and last.get("partial") and last["type"] == "ask" and last.get("ask") == kind
        if partial:
            if upd: update(len(ui) - 1, text=text, partial=True); return
            add({"ts": now(), "type": "ask", "ask": kind, "text": text, "partial": True}); return
        if upd: update(len(ui) - 1, text=text, partial=False); return
    add({"ts": now(), "type": "ask", "ask": kind, "text": text})
def stream(kind, chunks, final=True):           # successive partial updates, then partial=false
    acc = ""
    for c in chunks:
        acc += c; say(kind, acc, partial=True)
    if final: say(kind, acc, partial=False)
    return acc
def finalize_reasoning(text):                   # index.ts:2816-2837 finalizePendingReasoningMessage
    for i in range(len(ui) - 1, -1, -1):
        m = ui[i]
        if m["type"] == "say" and m.get("say") == "reasoning" and m.get("partial") is True:
            update(i, text=text, partial=False); return True
    return False
def api_req_started(request):                   # index.ts:2621-2656
    say("api_req_started", json.dumps({"request": request + "\n\nLoading..."}, separators=(",", ":")))
    idx = len(ui) - 1
    api.append({"role": "user", "content": [{"type": "text", "text": request}], "ts": now(5)})
    update(idx, text=json.dumps({"request": request}, separators=(",", ":")))
    return idx
def finish_api_req(idx, tin, tout, cost, cancel=None, failmsg=None):   # task/utils.ts:28-53
    info = json.loads(ui[idx]["text"]); info.pop("retryStatus", None)
    info.update({"tokensIn": tin, "tokensOut": tout, "cacheWrites": 0, "cacheReads": 0, "cost": cost,
                 "cancelReason": cancel, "streamingFailedMessage": failmsg})
    update(idx, text=json.dumps(_clean(info), separators=(",", ":")))
def assistant(content, cost):
    api.append({"role": "assistant", "content": content, "modelInfo": dict(MI),
                "metrics": {"tokens": {"prompt": 1200, "completion": 150, "cached": 0}, "cost": cost}, "ts": now(5)})
def checkpoint(h):                              # integrations/checkpoints/index.ts:157-176
    for m in ui:
        if m.get("say") == "checkpoint_created": m["isCheckpointCheckedOut"] = False
    say("checkpoint_created"); ui[-1]["lastCheckpointHash"] = h
TODO1 = "- [ ] Read the README\n- [ ] Run the test suite\n- [ ] Fix the failing test"
TODO2 = "- [x] Read the README\n- [ ] Run the test suite\n- [ ] Fix the failing test"
TODO3 = "- [x] Read the README\n- [x] Run the test suite\n- [x] Fix the failing test"
TASK = "Fix the failing unit test in calc.py"
ENV = "\n\n<environment_details>\n# Current Mode\nACT MODE\n</environment_details>"
# ---- request 1: task, reasoning, text, auto-approved read_file, task_progress
say("task", TASK, images=[], files=[])                                   # index.ts:1072
say("checkpoint_created"); ui[-1]["lastCheckpointHash"] = "a1b2c3d"      # index.ts:2479-2492
r = api_req_started("<task>\n" + TASK + "\n</task>" + ENV)
th = stream("reasoning", ["The user wants ", "me to fix a failing test. ", "First read the README."], final=False)
finalize_reasoning(th)                                                   # on first text chunk, index.ts:2931-2937
stream("text", ["I'll start ", "by reading the README."])               # finalized by processNativeToolCalls, index.ts:3477-3480
tool = json.dumps({"tool": "readFile", "path": "README.md", "content": "/home/u/proj/README.md", "operationIsLocatedInWorkspace": True}, separators=(",", ":"))
say("tool", tool, partial=True); say("tool", tool, partial=False)
assistant([{"type": "thinking", "thinking": th, "signature": "sig1"}, {"type": "text", "text": "I'll start by reading the README."},
           {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "README.md", "task_progress": TODO1}}], 0.011)
finish_api_req(r, 1200, 150, 0.011)
say("task_progress", TODO1)                                              # focus-chain/index.ts:306
checkpoint("b2c3d4e")
# ---- request 2: command needing approval, command output, failed replace_in_file (left partial)
r = api_req_started("[read_file for 'README.md'] Result:\n# calc\nRun `pytest`." + ENV)
th = stream("reasoning", ["Run pytest ", "to see the failure."], final=False); finalize_reasoning(th)
stream("text", ["Running the ", "tests now."])
ask("command", "pytest -q", partial=True); ask("command", "pytest -q", partial=False)   # ExecuteCommandToolHandler.ts:83
ask("command_output", "F.\n=================== FAILURES ===================")          # CommandOrchestrator.ts:181
ask("command_output", "E   assert add(2, 2) == 5\n1 failed, 1 passed in 0.02s")
[m for m in ui if m.get("ask") == "command"][-1]["commandCompleted"] = True   # CommandOrchestrator.ts:98-106
assistant([{"type": "thinking", "thinking": th, "signature": "sig2"}, {"type": "text", "text": "Running the tests now."},
           {"type": "tool_use", "id": "toolu_02", "name": "execute_command", "input": {"command": "pytest -q", "requires_approval": "false", "task_progress": TODO2}}], 0.013)
finish_api_req(r, 1500, 120, 0.013)
say("task_progress", TODO2)
checkpoint("c3d4e5f")
# ---- request 2b: replace_in_file whose SEARCH block fails -> tool + diff_error left partial:true
r = api_req_started("[execute_command for 'pytest -q'] Result:\nE   assert add(2, 2) == 5" + ENV)
edit = json.dumps({"tool": "editedExistingFile", "path": "calc.py", "content": "------- SEARCH\nreturn a - b\n=======\nreturn a + b\n+++++++ REPLACE", "operationIsLocatedInWorkspace": True}, separators=(",", ":"))
say("tool", edit, partial=True)                                          # WriteToFileToolHandler.ts:76 - never finalized
say("diff_error", "calc.py", partial=True)                               # WriteToFileToolHandler.ts:519-520 - stays partial
assistant([{"type": "tool_use", "id": "toolu_03", "name": "replace_in_file", "input": {"path": "calc.py", "diff": "------- SEARCH\nreturn a - b\n=======\nreturn a + b\n+++++++ REPLACE", "task_progress": TODO2}}], 0.008)
finish_api_req(r, 1600, 60, 0.008)
say("task_progress", TODO2)
checkpoint("d4e5f60")
# ---- request 3: streaming failure mid-reply -> text left partial:true (index.ts:3012-3061)
r = api_req_started("[replace_in_file for 'calc.py'] Result:\nThe tool execution failed: SEARCH block not found" + ENV)
th = stream("reasoning", ["The test expects ", "add(2,2)==5 which is wrong."], final=False); finalize_reasoning(th)
txt = stream("text", ["The test itself ", "is wrong: "], final=False)
err = json.dumps({"message": "terminated", "code": "ECONNRESET", "modelId": MI["modelId"]}, separators=(",", ":"))
say("error_retry", json.dumps({"attempt": 1, "maxAttempts": 3, "delaySeconds": 2, "errorMessage": err}, separators=(",", ":")))
# abortStream("streaming_failed"): last message is error_retry, not partial -> nothing finalized (index.ts:2733-2740)
finish_api_req(r, 1700, 40, 0.006, "streaming_failed", err)
assistant([{"type": "text", "text": txt + "\n\n[Response interrupted by API Error]"}], 0.006)
ask("resume_task")                                                       # resumeTaskFromHistory, index.ts:1181+
# ---- request 4 (auto-retry resumed): completion, feedback
r = api_req_started("[TASK RESUMPTION] This task was interrupted just now. It may or may not be complete, so please reassess the task context." + ENV)
th = stream("reasoning", ["The assertion ", "should be 4. Fix the test."], final=False); finalize_reasoning(th)
res = "Fixed the test: `add(2, 2)` now asserts 4."
say("completion_result", res, partial=True); say("completion_result", res, partial=False)   # AttemptCompletionHandler.ts:52,202
assistant([{"type": "thinking", "thinking": th, "signature": "sig4"}, {"type": "tool_use", "id": "toolu_04", "name": "attempt_completion", "input": {"result": res, "task_progress": TODO3}}], 0.009)
finish_api_req(r, 1900, 90, 0.009)
say("task_progress", TODO3)                                              # AttemptCompletionHandler.ts:215
ask("completion_result", "", partial=False)                              # AttemptCompletionHandler.ts:231
say("user_feedback", "Also add a docstring please", images=[], files=[])  # AttemptCompletionHandler.ts:237
# ---- request 5: user presses Cancel while text streams -> finalized partial:false (abortStream)
r = api_req_started("[attempt_completion] Result:\n<feedback>\nAlso add a docstring please\n</feedback>" + ENV)
th = stream("reasoning", ["Add a docstring ", "to add()."], final=False); finalize_reasoning(th)
txt = stream("text", ["Adding a ", "docstring to"], final=False)
ui[-1]["partial"] = False                                                # index.ts:2735-2737 then save at 2743
finish_api_req(r, 2000, 20, 0.004, "user_cancelled")
assistant([{"type": "text", "text": txt + "\n\n[Response interrupted by user]"}], 0.004)
ask("resume_task")
# write exactly like disk.ts (compact JSON.stringify); task_metadata with indent 2 (disk.ts:335)
ui = [_clean(m) for m in ui]
json.dump(ui, open(f"{OUT}/ui_messages.json", "w"), separators=(",", ":"), ensure_ascii=False)
json.dump(api, open(f"{OUT}/api_conversation_history.json", "w"), separators=(",", ":"), ensure_ascii=False)
json.dump({"files_in_context": [{"path": "README.md", "record_state": "active", "record_source": "read_tool", "cline_read_date": T[0], "cline_edit_date": None}],
           "model_usage": [{"ts": 1780000000100, "model_id": MI["modelId"], "model_provider_id": "anthropic", "mode": "act"}],
           "environment_history": [{"ts": 1780000000090, "os_name": "linux", "os_version": "6.8.0", "os_arch": "x64", "host_name": "Visual Studio Code", "host_version": "1.100.0", "cline_version": "3.89.2"}]},
          open(f"{OUT}/task_metadata.json", "w"), indent=2)
open(f"{OUT}/focus_chain_taskid_1780000000000.md", "w").write(
    "# Focus Chain List for Task 1780000000000\n\n<!-- Edit this markdown file to update your focus chain list -->\n<!-- Use the format: - [ ] for incomplete items and - [x] for completed items -->\n\n" + TODO3 + "\n\n<!-- Save this file and the focus chain list will be updated in the task -->")
print(len(ui), len(api))
