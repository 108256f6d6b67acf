"""The person's answers to an agent's questions (Claude Code's ``AskUserQuestion``, OpenCode's ``question``, Cline's
``ask_question``, Codex's ``request_user_input``): the options they picked and the notes they typed are their words
("what did we decide about the database?"), so they are stored as the person's turn, each beside the question it
answers. Read from what only the harness writes: the structure it keeps beside the result (Claude Code, OpenCode) or
the question tool's own result (Cline, Codex) — never from another tool's output, which anything the agent read could
imitate. Likewise the reason they typed when refusing a Claude Code tool call ("run only the unit tests"), when the
harness marks the refusal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from backscroll.ingest.sources.common import as_dict, as_list, as_str, json_object


def answer_text(pairs: Iterable[tuple[object, object, object]]) -> str:
    """``question → answer`` lines (and the person's note below) from ``(question, answer, note)`` triples; an answer
    may be a list of picked options, or none beside a note. Values not text are left out. Pure."""
    lines = []
    for question, answer, note in pairs:
        picked = [as_str(a).strip() for a in (answer if isinstance(answer, list) else [answer]) if as_str(a).strip()]
        noted, asked = as_str(note).strip(), as_str(question).strip()
        if not (picked or noted):
            continue
        if picked:
            lines.append(f"{asked} → {', '.join(picked)}" if asked else ", ".join(picked))
        elif asked:
            lines.append(asked)
        if noted:
            lines.append(noted)
    return "\n".join(lines)


def claude_answers(result: object) -> str:
    """The answers in Claude Code's ``toolUseResult`` of an ``AskUserQuestion`` (``answers``: question → option or
    options, ``annotations``: question → ``{"notes": ...}``), in the order asked; "" for any other result."""
    given = as_dict(result)
    answers, asked = given.get("answers"), given.get("questions")
    if not isinstance(answers, dict) or not isinstance(asked, list):
        return ""
    notes = as_dict(given.get("annotations"))
    texts = [q.get("question") if isinstance(q, dict) else q for q in asked]
    order = dict.fromkeys(t for t in texts if isinstance(t, str) and (t in answers or t in notes))
    order.update(dict.fromkeys([*answers, *notes]))  # (answered questions its list does not name, after)
    return answer_text((q, answers.get(q), as_dict(notes.get(q)).get("notes")) for q in order)


def opencode_answers(inp: object, metadata: object) -> str:
    """The answers of OpenCode's ``question`` tool: its input's ``questions`` and, in the same order, the options
    picked (``metadata.answers``, a list per question); "" when there are none."""
    questions = as_list(as_dict(inp).get("questions"))
    answers = as_dict(metadata).get("answers")
    if not isinstance(answers, list) or not questions:
        return ""
    return answer_text((as_dict(q).get("question"), a, None) for q, a in zip(questions, answers, strict=False))


CODEX_ASKS = "request_user_input"  # Codex's question tool
CODEX_NOTE = "user_note: "  # how Codex's answer list marks the note typed beside the option picked
MAX_ASKED = 24  # Codex's questions remembered until answered (or the turn ends)
MAX_QUESTION = 1000  # characters of a question remembered
Asked = tuple[tuple[str, str, str], ...]  # questions not yet answered: (call id, question id, question)


def codex_questions(arguments: object) -> list[tuple[str, str]]:
    """``(id, question)`` of each question a ``request_user_input`` call asks (its arguments, as JSON); a secret one
    (``isSecret``: the answer is masked as it is typed) is left out, and so is its answer."""
    asked = (as_dict(q) for q in as_list(as_dict(json_object(arguments)).get("questions")))
    return [(q["id"], (as_str(q.get("question")) or q["id"])[:MAX_QUESTION]) for q in asked
            if isinstance(q.get("id"), str) and q.get("isSecret", q.get("is_secret")) is not True]


def codex_answers(output: object, asked: Sequence[tuple[str, str]]) -> str:
    """The answers in the output of a ``request_user_input`` call (Codex's response, as JSON: question id →
    ``{"answers": [option picked, "user_note: " + note typed]}``), beside the questions ``asked``, in their order;
    "" for any other output (the tool refused in this mode, a request cancelled)."""
    answers = as_dict(as_dict(json_object(output)).get("answers"))
    triples = []
    for qid, question in asked:
        said = [as_str(a) for a in as_list(as_dict(answers.get(qid)).get("answers"))]
        notes = [a[len(CODEX_NOTE):] for a in said if a.startswith(CODEX_NOTE)]
        picked = [a for a in said if not a.startswith(CODEX_NOTE)]
        triples.append((question, picked or notes, "\n".join(notes) if picked else ""))  # (free text: the answer)
    return answer_text(triples)


def codex_asked(pending: Asked, call_id: str | None, name: str, arguments: object) -> dict:
    """The session update for a Codex tool call: a ``request_user_input`` call's questions are remembered till its
    answer's line; any other call that takes a pending call's id (a provider that reuses ids) forgets them."""
    kept = tuple(q for q in pending if q[0] != call_id)
    asks = codex_questions(arguments) if call_id and name == CODEX_ASKS else []
    return {"questions": (*kept, *((call_id, *q) for q in asks))[-MAX_ASKED:]} if asks or kept != pending else {}


def codex_answered(pending: Asked, payload: dict) -> tuple[str, dict]:
    """The person's answers in a Codex tool output, when it is the function output of the call that asked
    ``pending`` questions ("" for any other, or when none was given), and the session update that forgets them."""
    call_id = payload.get("call_id")
    asked = [(qid, question) for c, qid, question in pending if c == call_id]
    if not asked or payload.get("type") != "function_call_output":
        return "", {}
    return codex_answers(payload.get("output"), asked), {"questions": tuple(q for q in pending if q[0] != call_id)}


def codex_asking(payload: dict, pending: Asked) -> bool:
    """Whether a Codex response item is a ``request_user_input`` call or the function output that answers one: a
    paginated thread persists no completed item for them (none of its kinds is one), so they are read here."""
    ptype, call_id = payload.get("type"), payload.get("call_id")
    return ((ptype == "function_call" and payload.get("name") == CODEX_ASKS and not payload.get("namespace"))
            or (ptype == "function_call_output" and any(q[0] == call_id for q in pending)))


# how the harness's notice opens: the person refused the call (in a subagent: "denied")
REFUSED = ("The user doesn't want to proceed with this tool use.", "Permission for this tool use was denied.")
# what may follow the notice, before the reason they typed (wordings of Claude Code's versions)
_SAID = ("To tell you how to proceed, the user said:", "The user provided the following reason for the rejection:",
         "The user said:")
_AFTER = "\n\nNote: The user's next message"  # the harness's memory hint, appended after the reason
_CLARIFY = "The user wants to clarify these questions."  # the harness's template, no reason typed


def claude_refusal(line: dict, text: str) -> tuple[str, str] | None:
    """``(the harness's notice, the person's reason)`` of a refused tool call's result ``text``, when its ``line``
    is one Claude Code marks ``toolDenialKind: user-rejected`` (a tool's own error never is) and the person typed a
    reason; None otherwise. (Its caller reads only a line holding one result.)"""
    if line.get("toolDenialKind") not in ("user-rejected", "user_rejected") or not text.startswith(REFUSED):
        return None
    cut = min((i for i in (text.find(said) for said in _SAID) if i >= 0), default=-1)
    if cut < 0:
        return None
    notice, rest = text[:cut].strip(), text[cut:]
    reason = as_str(line.get("userFeedback")).strip() or rest.partition(":")[2].partition(_AFTER)[0].strip()
    return (notice, reason) if reason and not reason.startswith(_CLARIFY) else None
