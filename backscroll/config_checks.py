"""What the config file and the environment get wrong: keys nothing reads, values of a kind nothing reads, a password
where none belongs, a switch set to neither on nor off, a ``$BACKSCROLL_CONFIG`` naming no file. Each is a warning
(``Config.warnings``: the CLI prints them on stderr, ``status`` lists them) and the value is ignored."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TOP_KEYS = ("embed", "background", "redact", "roots", "sources", "archive")
SOURCE_KEYS = ("path", "agent")


def _unknown(key: str, known, where: str) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    guess = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key {key!r} {where} (ignored{guess or ';'} known: {', '.join(known)})"


def unknown_keys(file_values: Mapping[str, Any], agents) -> list[str]:
    """A warning for every key of the config file that nothing reads (a typo is otherwise silent). Pure."""
    out = [_unknown(k, TOP_KEYS, "in the config file") for k in file_values if k not in TOP_KEYS]
    roots = file_values.get("roots")
    if isinstance(roots, dict):
        out += [_unknown(k, tuple(agents), "in [roots]") for k in roots if k not in agents]
    sources = file_values.get("sources")
    for entry in sources if isinstance(sources, list) else []:
        if isinstance(entry, dict):
            out += [_unknown(k, SOURCE_KEYS, "in [[sources]]") for k in entry if k not in SOURCE_KEYS]
    return list(dict.fromkeys(out))


def as_bool(value: object) -> bool | None:
    """A setting's value read as a switch (``true``, ``0``, ``"off"``, ``""``); None when it is none. Pure."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and (word := value.strip().lower()) in {"1", "true", "yes", "on", "0", "false", "no",
                                                                       "off", ""}:
        return word in {"1", "true", "yes", "on"}
    return None


def wrong_types(file_values: Mapping[str, Any]) -> list[str]:
    """A warning for every value of the config file of a kind nothing can read (it is then ignored). Pure."""
    out = [f"{k} = {file_values[k]!r} is neither true nor false (ignored)" for k in ("embed", "redact", "background")
           if k in file_values and as_bool(file_values[k]) is None]
    if not isinstance(file_values.get("sources", []), list):
        out.append('sources is not a list of [[sources]] tables (ignored; e.g. [[sources]] path = "/mnt/old")')
    roots = file_values.get("roots")
    if roots is not None and not isinstance(roots, dict):
        out.append('roots is not a table (ignored; e.g. [roots] claude = "~/.claude/projects")')
    for agent, paths in roots.items() if isinstance(roots, dict) else ():
        if not all(isinstance(p, str) for p in (paths if isinstance(paths, list) else [paths])):
            out.append(f"[roots] {agent} is not a path or a list of paths (what is not a path is ignored)")
    archive = file_values.get("archive")
    if archive is not None and not (isinstance(archive, dict) and isinstance(archive.get("url", ""), str)
                                    and isinstance(archive.get("member", ""), str)):
        out.append('[archive] takes url = "postgresql://…" and member = "name", as text (ignored)')
    return out


def archive_password(file_values: Mapping[str, Any]) -> list[str]:
    """A warning when ``[archive] url`` holds a password: a config file is not where one belongs. Pure."""
    section = file_values.get("archive")
    url = section.get("url") if isinstance(section, dict) else None
    if isinstance(url, str) and re.search(r"^postgres(?:ql)?://[^/@]*:[^/@]*@|(?:^|\s)password\s*=", url, re.I):
        return ["[archive] url holds a password: keep it in ~/.pgpass or $PGPASSWORD instead (backscroll never "
                "shows it, but the file may be read or shared)"]
    return []


def env_mistakes(env: Mapping[str, str], config_file: Path, origin: str) -> list[str]:
    """A warning for every switch in the environment set to what is neither on nor off (it is then ignored, as such a
    value in the config file is), and for a ``$BACKSCROLL_CONFIG`` that names no file (a typo, most likely)."""
    out = [f"${name}={env[name]!r} is neither on nor off (ignored; use 1/0, true/false, yes/no or on/off)"
           for name in ("BACKSCROLL_EMBED", "BACKSCROLL_REDACT", "BACKSCROLL_BACKGROUND", "BACKSCROLL_PROGRESS")
           if env.get(name, "").strip() and as_bool(env[name]) is None
           and not (name == "BACKSCROLL_PROGRESS" and env[name].strip().lower() in ("always", "never"))]
    if origin == "env $BACKSCROLL_CONFIG" and not os.path.lexists(config_file):
        out.append(f"$BACKSCROLL_CONFIG names {config_file}, which does not exist (running without a config file)")
    return out
