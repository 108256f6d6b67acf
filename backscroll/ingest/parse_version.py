"""The parsers' version: bumped when a parser reads the same lines differently.

Every source file is read again from the start by a newer parser, and the records it emits again replace their
earlier versions. Each file's checkpoint says which version read it (``source_files.parse_version``), so a file away
when the newer parser came (a drive not mounted, a folder indexed once with ``--source``) is read again when ``index``
next finds it, or a search's sync in its turn through the files.
"""

# The versions, each with what it changed (2: authors, reasoning, summaries, sidechains;
# 3: OpenCode subagent prompts are the parent agent's; Cursor and Copilot fixes from real files;
# 4: Claude Code's IDE context, <ide_selection> and its kin, is the harness's; 5: fixes from real files
# of Claude Code (queue-line prompts, hook stops), Codex desktop and IDE context, Copilot CLI authors
# and compaction summaries, Cline auto-approved calls and opening prompts, Aider reasoning and echoes;
# 6: a project is named after its repository, not the last folder of the cwd; 7: issue #38, from real
# files: Aider's unquoted note lines and typed /run instructions, Crush's errors and placeholder titles,
# OpenHands' empty outputs and edits, Cline's complete messages left partial and its todo lists;
# 8: Aider's model replies keep their own "#### " headings, which had been read as the person's inputs;
# 9: Aider's note lines of an edit applied, or a file created, are that edit's calls, for ``files``; a title
# skips lines of markup alone, such as "<pre>"; Aider's inputs take their times from its input history;
# 10: Kimi's lines are dated (by its wire log's turns, else the file's last write), its notifications and
# <system> text are the harness's and a compaction leaves a summary; Qwen Code's notifications are the
# harness's and its compressions summaries; a Pi turn that failed leaves its error; 11: a Gemini CLI
# compression keeps what it left out and its snapshot is a summary, the text Gemini composes in the person's
# turn is the harness's; 12: compaction summaries of Goose, Crush, Amp and Droid are kept, a Crush reply the
# content filter stopped leaves a notice, Zed tool results written as a list of parts are read; 13: a subagent's
# prompts are its parent agent's in every reader, Goose's, Crush's and Kimi's too; 14: the context Codex adds to the
# person's turn is the harness's, and a message between agents written as JSON is the sender's; 15: Roo Code's
# subtasks, their results and condensed context; Copilot's summaries, listed reasoning and failures; OpenCode's
# errors and an interrupted tool's output; 16: a Zed message is dated by the save that first held it, a thread's
# first message by the thread's creation; 17: review of 11-16: the person's words inside a Roo subtask are theirs, a
# Goose prompt put back after compaction is no summary, only agent paths make a Codex message one between agents, a
# Gemini hook's context is the part a hook added; 18: an OpenCode session only its newer ``session_message`` table
# holds is read; 19: a Gemini rewind after a compression cuts Gemini's own order, leaving the summary; 20: the person's
# answers to Claude Code's ``AskUserQuestion``, OpenCode's ``question`` and Cline's ``ask_question``, and the reason
# they give for refusing a Claude Code tool call, are their text, not the tool's output; 21: so are their answers to
# Codex's ``request_user_input``); 22: a Claude Code line whose ``origin`` is of any kind but human is not the
# person's (another session's or a background task's, else the harness's: a notification, an MCP channel's message, a
# kind not known), a prompt queued then sent by another is theirs and stored once, a background task's record in the
# queue is no prompt, a slash command written as a ``system`` line is the person's and the away recap a summary, a
# workflow's subagent is its session's, and an API error written as the assistant's turn is the harness's; a Codex
# message between agents on a line of its own is the sending agent's, and what a compaction wrote, a parent thread's
# turn copied into a subagent's or an answer kept for the model is not read twice; Qwen Code's archived chats are
# read, its prompt ledger is no session, a hook's context is not the person's words, and a subagent's turns, other
# agents' messages and a goal's nudges are not theirs either; a Gemini CLI compression whose model reasoned in a
# scratchpad first is a summary; an OpenCode session's rows in its newer table are read beside its ``message`` rows
# (not their copies), and a fork's copy of its parent is not); 23: a Codex subagent's copy of its parent's
# history is skipped by the line numbers its meta names, or, copied whole by older Codex, up to the spawn's note to
# it; a Claude Code side question (``/btw``) is the person's, the prompts of the other helpers forked from the
# conversation are not stored, and a prompt suggestion's or speculative run's transcript adds nothing; the Cursor
# CLI's assistant messages are keyed by their blobs (each one's own id is "1": all but the first were lost), and an
# older Cursor transcript's call written without named arguments no longer ends the read or becomes the reply;
# a Copilot CLI skill's hidden prompt or autopilot's continuation is the harness's, and so is a VS Code "Continue"
# the person clicked; a VS Code reply part checked for vulnerabilities is read, a subagent's calls leave the main
# model's paired, and a forked conversation's copies of the requests it was forked from are not stored again; a
# Cursor 3 editor chat finds its folder where Cursor 3 names it, and a subagent's thread is linked to its parent,
# without the parent's bubbles a forked one copied nor a second copy from its transcript; an option the person
# clicked in Cline is their answer, a completion loses Cline's "HAS_CHANGES" flag, Cline's compaction is a summary,
# and a Roo edit's call no longer holds the whole file as it was before; Amp's newer shell calls are shell calls, a
# failed run's error is its result, an answer is dated by its inference; a Droid worker is linked to its caller, and
# Droid's own title is the title; Goose's per-turn context is no summary and a subagent session names its parent,
# and a Zed compaction's summary is one; 24: the scratchpad notice Vibe 2 puts before a subagent's task is the
# harness's; 25: an older Cursor ``.txt`` transcript's tool output answers its call (by name, in order); 26: prose
# that names ``<backscroll-recall>`` is prose (only a block the hook printed is an echo), and a log's record id that
# is no plain word (``a;touch x``) or holds a secret is stored as a digest of it; 27: so is one over 1,000
# characters, and a session id that is that long, holds a character that does not show as itself or a secret; a
# working directory, remote URL or tool name is cut at 1,000 characters; 28: a Cursor question that quotes
# ``</user_query>`` keeps its words after the quote; 29: whole-file readers repair lone surrogates, a BOM and NaN;
# an impossible Aider header is text and runs in one second stay apart; a Copilot ``.json`` beside a log that holds
# nothing and a Cursor transcript beside a damaged database are read; a record appended to a cut-short line after
# a key not seen before is kept; an epoch of 0 or less is no time.
PARSE_VERSION = 29
