"""The person's answers to an agent's questions (Claude Code's ``AskUserQuestion``, OpenCode's ``question``): the
options they picked and the notes they typed are their words ("what did we decide about the database?"), so they
are stored as the person's turn, each beside the question it answers. Read only from the structure the harness keeps
beside the tool's result, never from a result's text, which anything the agent read could imitate. Likewise the
reason they typed when refusing a Claude Code tool call ("run only the unit tests"), when the harness's own record
of the refusal says it was one.
"""

from __future__ import annotations

from collections.abc import Iterable

from backscroll.ingest.sources.common import as_dict, as_list


def answer_text(pairs: Iterable[tuple[object, object, object]]) -> str:
    """``question → answer`` lines (and the person's note below its answer) from ``(question, answer, note)``
    triples; an answer may be a list of picked options. Values not text are left out. Pure."""
    lines = []
    for question, answer, note in pairs:
        picked = [a.strip() for a in (answer if isinstance(answer, list) else [answer])
                  if isinstance(a, str) and a.strip()]
        if not picked:
            continue
        asked = question.strip() if isinstance(question, str) else ""
        lines.append(f"{asked} → {', '.join(picked)}" if asked else ", ".join(picked))
        if isinstance(note, str) and note.strip():
            lines.append(note.strip())
    return "\n".join(lines)


def claude_answers(result: object) -> str:
    """The answers in Claude Code's ``toolUseResult`` of an ``AskUserQuestion`` (``answers``: question → option or
    options, ``annotations``: question → ``{"notes": ...}``); "" for any other result."""
    given = as_dict(result)
    answers = given.get("answers")
    if not isinstance(answers, dict) or not isinstance(given.get("questions"), list):
        return ""
    notes = as_dict(given.get("annotations"))
    return answer_text((q, a, as_dict(notes.get(q)).get("notes")) for q, a in answers.items())


def opencode_answers(inp: object, metadata: object) -> str:
    """The answers of OpenCode's ``question`` tool: its input's ``questions`` and, in the same order, the options
    picked (``metadata.answers``, a list per question); "" when there are none."""
    questions = as_list(as_dict(inp).get("questions"))
    answers = as_dict(metadata).get("answers")
    if not isinstance(answers, list) or not questions:
        return ""
    return answer_text((as_dict(q).get("question"), a, None) for q, a in zip(questions, answers, strict=False))


REFUSED = "The user doesn't want to proceed with this tool use."
_SAID = "To tell you how to proceed, the user said:"


def claude_refusal(text: str, result: object, is_error: bool) -> tuple[str, str] | None:
    """``(the harness's notice, the person's reason)`` of a tool call the person refused with a reason: an error
    result whose text opens with Claude Code's notice, and whose ``toolUseResult`` (the harness's, not the tool's)
    says the same; None for any other result."""
    if not (is_error and text.startswith(REFUSED) and isinstance(result, str)
            and result.startswith(f"Error: {REFUSED}")):
        return None
    notice, said, reason = text.partition(_SAID)
    return (notice.strip(), reason.strip()) if said and reason.strip() else None
