"""The names of the registered agents, in registry order, without importing their readers; and where the agents this
version does not read keep their sessions.

Checking a config file or a ``--source`` prefix needs only the names; loading twenty readers for it
would cost every command that does not sync (a search with ``--no-sync``, a hook). A test keeps this
list equal to ``backscroll.ingest.sources.AGENTS``.
"""

AGENT_NAMES = ("claude", "codex", "gemini", "opencode", "pi", "cursor", "copilot", "cline", "roo", "kilo", "aider",
               "omp", "qwen", "kimi", "amp", "goose", "droid", "crush", "zed", "openhands",
               "hermes", "continue", "openclaw", "vibe", "auggie", "kiro")

# Layouts this version does not read (another agent's, or another layout of one it reads), where their sessions
# lie: ``(name, glob under the user's home, what they are)``.
# ``status`` names one that is there, so that what is indexed is not taken for the whole history.
NOT_READ: tuple[tuple[str, str, str], ...] = (
    ("vibe", ".vibe/logs/session/session_*.json", "Mistral Vibe 1 sessions"),
    ("grok", ".grok/sessions/*/*/chat_history.jsonl", "Grok Build sessions"),
    ("junie", ".junie/sessions/*/events.jsonl", "Junie CLI sessions"),
    ("antigravity", ".gemini/antigravity-cli/brain/*/.system_generated/logs/transcript_full.jsonl",
     "Antigravity CLI transcripts"),
)
