"""The names of the registered agents, in registry order, without importing their readers.

Checking a config file or a ``--source`` prefix needs only the names; loading twenty readers for it
would cost every command that does not sync (a search with ``--no-sync``, a hook). A test keeps this
list equal to ``backscroll.ingest.sources.AGENTS``.
"""

AGENT_NAMES = ("claude", "codex", "gemini", "opencode", "pi", "cursor", "copilot", "cline", "roo", "kilo", "aider",
               "omp", "qwen", "kimi", "amp", "goose", "droid", "crush", "zed", "openhands",
               "hermes")
