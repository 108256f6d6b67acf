"""The person's answers to an agent's questions (Claude Code's ``AskUserQuestion``, OpenCode's ``question``): the
options they picked and the notes they typed are their words ("what did we decide about the database?"), so they
are stored as the person's turn, each beside the question it answers. Read only from the structure the harness keeps
beside the tool's result, never from a result's text, which anything the agent read could imitate.
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
