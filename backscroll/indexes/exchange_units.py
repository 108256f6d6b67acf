"""What a prose record is embedded as: an exchange unit. A user message is a unit of its own; an assistant answer
is embedded with the user message it answers (people ask the way the question was first asked). The shortest
replies ("ok", "thanks") are not embedded: they would only add noise."""

MIN_EMBED_CHARS = 12  # shorter prose is not embedded (lexical search still finds it)
# The question's share of an exchange unit (about 60 tokens of the 256). In 92 public session files the
# question makes 36 % of the characters embedded, and 1,224 of 1,971 answers repeat the question of the
# one before (an agent writes several texts per prompt). Shorter (150) or only on the first text after a
# question: about a fifth less to embed, but the tuning set loses (hybrid hit@1/recall@5 .502/.771 ->
# .498/.762 and .498/.752: malformed and subagent queries, whose answers come late in a turn).
UNIT_USER_CHARS = 300


def unit_text(role: str, text: str, question: str | None) -> str:
    """The text a prose record is embedded as. Pure."""
    if role == "assistant" and question:
        return question[:UNIT_USER_CHARS] + "\n\n" + text
    return text
