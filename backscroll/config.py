"""Where things are: the data directory, the config file and the agents' session roots.

Every value is resolved with the same precedence, flag > environment > config file > default, and
remembers where it came from so that ``backscroll status`` can say so.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backscroll.config_checks import archive_password, as_bool, env_mistakes, unknown_keys, wrong_types
from backscroll.errors import UsageError
from backscroll.types import SourceRoot

APP = "backscroll"
_AGENT_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")  # ``name:`` in front of a --source path


@dataclass(frozen=True)
class Setting:
    """A resolved value and where it came from (``flag``, ``env $NAME``, ``config``, ``default``)."""

    value: Any
    origin: str


@dataclass(frozen=True)
class Config:
    home: Setting
    config_file: Setting
    embed: Setting
    redact: Setting
    # A search that leaves prose without vectors starts a worker that embeds it in the background.
    background: Setting = field(default_factory=lambda: Setting(True, "default"))
    file_values: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # unknown keys in the config file (the CLI prints them on stderr)
    # Finds the session roots on first use: the agents' default places need every reader's module,
    # which a search that does not sync (and a hook) never loads.
    find_roots: Callable[[], tuple[SourceRoot, ...]] = field(default=tuple, repr=False, compare=False)
    # The environment it was resolved in: where the agents' places are (``status``), never printed.
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ), repr=False, compare=False)

    @functools.cached_property
    def roots(self) -> tuple[SourceRoot, ...]:
        """Where sessions are read from: each agent's default places (or ``[roots]``), then
        ``[[sources]]`` and ``--source``."""
        return self.find_roots()

    @property
    def db_path(self) -> Path:
        return self.home.value / "backscroll.db"

    @property
    def index_dir(self) -> Path:
        return self.home.value / "index"

    @property
    def vectors_dir(self) -> Path:
        return self.home.value / "vectors"

    @property
    def lock_path(self) -> Path:
        return self.home.value / "write.lock"


def _expand(p: str | os.PathLike, base: Path | None = None) -> Path:
    """A path as given (``~`` and ``$VAR`` expanded); a relative one from ``base`` (a config file's folder), else the
    current directory."""
    path = os.path.expandvars(os.path.expanduser(str(p)))
    return Path(os.path.abspath(os.path.join(base, path) if base is not None else path))  # ("a/../b" is b)


def _default_home() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False))


def _check_user_home(data_dir: Path) -> None:
    """Refuse a default data dir under a home directory that does not exist (``HOME=/nonexistent``, a service's
    user): making it would make that home, as root anywhere on the disk."""
    user_home = Path(os.path.expanduser("~"))
    if data_dir.is_relative_to(user_home) and not os.path.isdir(user_home):
        raise UsageError(f"the home directory {user_home} does not exist, and the data dir would be made inside it",
                         hint="set $BACKSCROLL_HOME (or --home) to a folder backscroll may create")


def _default_config_dir() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP, appauthor=False))


def _read_config_file(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:  # (TOML is UTF-8)
        raise UsageError(
            f"cannot read the config file {path}: {exc}",
            hint="fix or remove the file (every command reads it); to run without it meanwhile, point "
                 "$BACKSCROLL_CONFIG at another file",
        ) from None


def _bool_setting(name: str, env_name: str, file_values: dict, env: Mapping[str, str],
                  flag: bool | None, default: bool) -> Setting:
    if flag is not None:
        return Setting(flag, "flag")
    if env.get(env_name, "").strip() and (on := as_bool(env[env_name])) is not None:  # (else ``env_mistakes`` warns)
        return Setting(on, f"env ${env_name}")
    value = as_bool(file_values[name]) if name in file_values else None
    if value is not None:
        return Setting(value, "config")
    return Setting(default, "default")  # (absent, or of a kind nothing reads: ``wrong_types`` warns)


def parse_source_spec(spec: str) -> tuple[str | None, str]:
    """``codex:/path`` names the agent; a bare path lets every agent claim its own files."""
    from backscroll.ingest.agent_names import AGENT_NAMES as AGENTS

    head, sep, tail = spec.partition(":")
    if sep and head in AGENTS and tail:
        return head, tail
    if sep and tail and _AGENT_PREFIX.match(head) and not os.path.lexists(_expand(spec)):
        import difflib

        close = difflib.get_close_matches(head, list(AGENTS), n=1)
        raise UsageError(f"unknown agent {head!r} in --source {spec}",
                         hint=(f"did you mean {close[0]}:{tail}? " if close else "")
                         + f"registered agents: {', '.join(AGENTS)}; "
                         "or give a bare path to let every agent claim its files")
    return None, spec


def default_roots(env: Mapping[str, str], file_roots: Mapping[str, Any], base: Path | None = None) -> list[SourceRoot]:
    """Each agent's default places, or what ``[roots]`` in the config file (in ``base``) names instead."""
    from backscroll.ingest.sources import AGENTS

    roots: list[SourceRoot] = []
    for name, agent in AGENTS.items():
        found = agent.default_root(env)
        defaults = found if isinstance(found, list) else [found]
        if name in file_roots and all(origin == "default" for _p, origin in defaults):
            given = file_roots[name]  # one path, or a list of them (aider: the repositories' parents)
            defaults = [(_expand(p, base), "config") for p in (given if isinstance(given, list) else [given])
                        if isinstance(p, str)]
        roots.extend(SourceRoot(path, name, origin) for path, origin in defaults)
    return roots


def resolve(
    home: str | os.PathLike | None = None,
    sources: tuple[str, ...] | list[str] = (),
    embed: bool | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Resolve the configuration from flags (the arguments), the environment and the config file."""
    from backscroll.ingest.agent_names import AGENT_NAMES

    env = os.environ if env is None else env
    if home is not None and not isinstance(home, (str, os.PathLike)):  # (``home=5`` would be a folder named 5)
        raise UsageError(f"home must be a folder's path, not {home!r}"[:200])
    if not isinstance(sources, (list, tuple)) or not all(isinstance(s, str) for s in sources):
        raise UsageError("sources must be a list of AGENT:PATH or PATH texts", hint='e.g. sources=["codex:/mnt/old"]')
    if home is not None and not str(home).strip():  # (``--home "$UNSET"``: not the current directory)
        raise UsageError("--home names no folder", hint="give a folder, or leave --home out for the default")
    if home is not None:
        home_s = Setting(_expand(home), "flag")
    elif env.get("BACKSCROLL_HOME"):
        home_s = Setting(_expand(env["BACKSCROLL_HOME"]), "env $BACKSCROLL_HOME")
    else:
        home_s = Setting(_default_home(), "default")
    try:
        a_file = home_s.value.exists() and not home_s.value.is_dir()
    except OSError:  # (a parent that cannot be entered: said where the store is opened)
        a_file = False
    if home_s.origin == "default":
        _check_user_home(home_s.value)
    if a_file:
        where = {"flag": "--home", "env $BACKSCROLL_HOME": "$BACKSCROLL_HOME"}.get(home_s.origin, "the data dir")
        raise UsageError(f"{where} ({home_s.value}) is a file, not a directory",
                         hint="point it at a directory (backscroll creates it), or move the file away")

    if env.get("BACKSCROLL_CONFIG"):
        cfg_s = Setting(_expand(env["BACKSCROLL_CONFIG"]), "env $BACKSCROLL_CONFIG")
    elif home_s.origin != "default":
        cfg_s = Setting(home_s.value / "config.toml", f"beside the data dir ({home_s.origin})")
    else:
        cfg_s = Setting(_default_config_dir() / "config.toml", "default")
    file_values = _read_config_file(cfg_s.value)

    extra: list[SourceRoot] = []
    file_roots = roots if isinstance(roots := file_values.get("roots"), dict) else {}
    base = cfg_s.value.parent  # (a relative path in the config file is from its folder)
    for entry in listed if isinstance(listed := file_values.get("sources"), list) else []:
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise UsageError(f"config file {cfg_s.value}: every [[sources]] entry needs a path",
                             hint='e.g. [[sources]] path = "/mnt/old/.codex/sessions" agent = "codex"')
        agent_name = entry.get("agent")
        if agent_name is not None and agent_name not in AGENT_NAMES:
            raise UsageError(f"config file {cfg_s.value}: unknown agent {agent_name!r}",
                             hint=f"known agents: {', '.join(AGENT_NAMES)}")
        extra.append(SourceRoot(_expand(entry["path"], base), agent_name, "config"))
    for spec in sources:
        agent_name, path = parse_source_spec(spec)
        extra.append(SourceRoot(_expand(path), agent_name, "flag"))
    env_now = dict(env)  # the roots are found later: from the environment as it was here

    return Config(
        home=home_s,
        config_file=cfg_s,
        find_roots=lambda: (*default_roots(env_now, file_roots, base), *extra),
        env=env_now,
        embed=_bool_setting("embed", "BACKSCROLL_EMBED", file_values, env, embed, True),
        redact=_bool_setting("redact", "BACKSCROLL_REDACT", file_values, env, None, True),
        background=_bool_setting("background", "BACKSCROLL_BACKGROUND", file_values, env, None, True),
        file_values=file_values,
        warnings=(*env_mistakes(env, cfg_s.value, cfg_s.origin), *(f"config file {cfg_s.value}: {w}" for w in (
            *unknown_keys(file_values, AGENT_NAMES), *wrong_types(file_values), *archive_password(file_values)))),
    )
