"""``backscroll status``: what is indexed, from where, what was skipped, and where every path came from.

Paths and reasons that come from sessions are bounded (``sanitize.shorten``): a hostile row never makes
status print megabytes."""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path

from backscroll.config import Config
from backscroll.embedding import foreground_running
from backscroll.ingest.sources import AGENTS
from backscroll.sanitize import shorten
from backscroll.status_check import check as check_all
from backscroll.status_check import lexical_state
from backscroll.status_places import has_files, left_out, read_in_vain, unread_layouts
from backscroll.status_types import (
    AgentStatus,
    EmbeddingStatus,
    Place,
    ProjectStatus,
    Root,
    Setting,
    Sizes,
    SkippedLine,
    SourceIssue,
    StatusReport,
    UnfinishedLine,
    UnknownType,
    WorkerStatus,
)
from backscroll.store.lock import writer_busy
from backscroll.store.outbox import LAST_PUSH


def _size(path) -> int:
    total = 0
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        for dirpath, _dirs, files in os.walk(path):
            for f in files:
                try:
                    total += os.stat(os.path.join(dirpath, f)).st_size
                except OSError:
                    pass
    return total


CLAUDE_KEEPS_DAYS = 30  # Claude Code's default cleanupPeriodDays


def claude_keeps_days(projects_root) -> int:
    """``cleanupPeriodDays`` from Claude Code's settings.json beside its projects dir (30 by default)."""
    import json

    try:
        value = json.loads((projects_root.parent / "settings.json").read_text()).get("cleanupPeriodDays")
    except (OSError, ValueError, AttributeError):
        return CLAUDE_KEEPS_DAYS
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else CLAUDE_KEEPS_DAYS


_SHALLOW = 2  # a common folder with fewer parts than this ("/", "/home") is no place to read again: it is split


def _file(path: str) -> str:
    """A session's file: its path without a unit's ``#part`` (``history.md#2``); a ``#`` in a folder's name stays."""
    head, sep, part = path.rpartition("#")
    return head if sep and "/" not in part else path


def _common_folders(paths: list[str]) -> dict[str, int]:
    """The deepest folder holding the paths, with how many it holds; when that is ``/`` or a top folder (files read
    with ``--source`` from places far apart, which ``index --source`` would crawl whole), one folder for each group
    of paths that share their first two folders."""
    files = [_file(p) for p in paths if p and p.startswith("/")]
    if not files:
        return {}
    common = os.path.commonpath(files)  # (once: it splits every path, 15,000 of them at 20,000 sessions)
    groups = [(common, files)]
    if len(Path(common).parts) <= _SHALLOW:
        apart: dict[tuple[str, ...], list[str]] = {}
        for path in files:
            apart.setdefault(tuple(path.split("/")[1:1 + _SHALLOW]), []).append(path)
        groups = [(os.path.commonpath(group), group) for group in apart.values()]
    out: dict[str, int] = {}
    for common, group in groups:
        folder = shorten(os.path.dirname(common) if common in group else common)
        out[folder] = out.get(folder, 0) + len(group)
    return dict(sorted(out.items()))


def _common_folder(paths: list[str]) -> str | None:
    """The one folder the paths were read from, or None when they were read from several far apart."""
    folders = _common_folders(paths)
    return next(iter(folders)) if len(folders) == 1 else None


def _older_parser(store) -> dict[str, int]:
    """The files an older parser read, by ``AGENT:FOLDER`` (the folder holding that agent's): ``index --source`` with
    it reads them again (a search's sync reaches them only in its turn)."""
    from backscroll.ingest.parse_version import PARSE_VERSION

    by_agent: dict[str, list[str]] = {}
    for agent, path in store.read_by_older(PARSE_VERSION):
        by_agent.setdefault(agent, []).append(path)
    return {f"{agent}:{folder}": n for agent, paths in by_agent.items()  # (each place apart: a `--source` each)
            for folder, n in _common_folders(paths).items()}


def agent_health(cfg: Config, store, counts, report: StatusReport, now=None, started: str | None = None) -> list[str]:
    """Fill each agent's files, records by kind and unknown entry types; return the warnings (``started``: when the
    last full index run started, read before any mark of its end)."""
    from datetime import datetime, timedelta

    from backscroll.dates import format_ts, local_time
    from backscroll.ingest.rows import on_disk
    from backscroll.ingest.units import TYPE_NAME_MAX

    read: dict[str, list[str]] = {}  # (each agent's session files, read once)

    def source_paths(agent: str) -> list[str]:
        if agent not in read:
            read[agent] = store.source_paths(agent)
        return read[agent]

    for agent, n in counts.files_by_agent.items():
        report.agent(agent).files = n
        report.agent(agent).read_from = _common_folder(source_paths(agent))
    for agent, kind, n in counts.kinds:
        report.agent(agent).kinds[kind] = n
    for agent, etype, n, path, line in counts.unknown:
        where = shorten(path) + (f":{line}" if line else "")  # (a store from before names were bounded at ingest)
        report.agent(agent).unknown.append(UnknownType(shorten(etype, TYPE_NAME_MAX), n, where))
    warnings: list[str] = []
    for root in cfg.roots:
        if not root.agent or not root.path.is_dir():
            continue
        info = report.agent(root.agent)
        if not info.sessions and not info.files and report.last_index_run is None and has_files(root.path):
            warnings.append(f"{root.agent}: {root.path} holds files not read yet: the first `backscroll index` has "
                            "not finished (still running, or interrupted: run it again)")
        elif not info.sessions and read_in_vain(root.agent, root.path, store.files_read(root.agent, str(root.path))):
            warnings.append(f"{root.agent}: {root.path} holds files but no session was read from them "
                            "(a format this version does not know?)")
    if started and started > (store.get_meta("last_full_index_run") or "") and not writer_busy(cfg):
        warnings.append(f"the index run started {local_time(started)} stopped before it had read every session file "
                        "(interrupted?): the next `backscroll index` reads the rest")
    warnings.extend(unread_layouts(Path(cfg.env.get("HOME") or os.path.expanduser("~"))))
    warnings.extend(left_out(cfg))
    now = now or datetime.now(UTC)
    claude_root = next((r.path for r in cfg.roots if r.agent == "claude" and r.origin != "flag"), None)
    claude = report.agents.get("claude")
    if claude_root is not None and claude and claude.sessions:
        days = claude_keeps_days(claude_root)
        paths = source_paths("claude")
        claude.gone_from_disk = sum(1 for p in paths if p and not on_disk(p))
        claude.agent_keeps_days = days
        last = store.last_read("claude")
        if days and last and last < format_ts(now - timedelta(days=days)):
            warnings.append(f"claude: the last read of its sessions ({last}, by an index or a search) is older than "
                            f"the {days} days Claude Code keeps sessions (cleanupPeriodDays): sessions from that gap "
                            "may be gone; index more often")
    return warnings


def _worker(cfg: Config, store, emb: EmbeddingStatus) -> None:
    """What the background embedding worker is doing, and how long what is left should take it."""
    from backscroll import background

    last = background.state(store, cfg)
    if last is None:
        return
    stopped = None if last.running or last.finished else last.error or "killed or crashed before it finished"
    emb.worker = WorkerStatus(last.running, last.rate, int(emb.pending / last.rate) if last.running and last.rate
                              else None, stopped)


def collect(cfg: Config, skipped: int = 5, check: bool = False, step=None) -> StatusReport:
    """The status of the store and indexes of ``cfg``, with ``skipped`` examples of the lines skipped (-1: every
    one), and with ``check`` the full check (``status_check``; ``step`` hears its parts); a store error carries the
    report so far (``partial_status``: the paths, and the check)."""
    paths = {
        "home": Place(str(cfg.home.value), cfg.home.origin),
        "config_file": Place(str(cfg.config_file.value), cfg.config_file.origin, cfg.config_file.value.exists()),
        "store": Place(str(cfg.db_path)),
        "lexical_index": Place(str(cfg.index_dir)),
    }
    report = StatusReport(
        paths=paths, roots=[Root(str(r.path), r.origin, r.path.is_dir(), r.agent) for r in cfg.roots],
        settings={"embed": Setting(cfg.embed.value, cfg.embed.origin),
                  "redact": Setting(cfg.redact.value, cfg.redact.origin),
                  "background": Setting(cfg.background.value, cfg.background.origin)},
        indexed=cfg.db_path.exists(), config_warnings=list(cfg.warnings), agents={a: AgentStatus() for a in AGENTS},
        indexing=writer_busy(cfg))
    if not report.indexed:
        return report
    from backscroll.store.failures import store_failure

    try:
        _from_store(cfg, report, skipped)
    except Exception as exc:  # a damaged store: the error carries what was found so far (the paths, the check)
        known = store_failure(exc, cfg.db_path)
        if known is None:
            raise
        known.partial_status = _checked(cfg, report, check, step)
        raise known from None
    return _checked(cfg, report, check, step)


def _checked(cfg: Config, report: StatusReport, check: bool, step) -> StatusReport:
    """The report with the full check when asked for (``status_check``), of a store status could not read too."""
    if check:
        report.check = check_all(cfg, step or (lambda _part: None))
    return report


def _from_store(cfg: Config, report: StatusReport, skipped: int = 5) -> None:
    from backscroll.errors import DiskFullError, ReadOnlyStoreError
    from backscroll.indexes import embedders as embed
    from backscroll.ingest.rows import disk_path
    from backscroll.store.db import Store

    try:
        store = Store.open(cfg.db_path) if os.access(cfg.db_path.parent, os.W_OK) else Store.open_readonly(cfg.db_path)
    except (ReadOnlyStoreError, DiskFullError):  # status only reads: a full disk costs it nothing
        store = Store.open_readonly(cfg.db_path)
    report.read_only = store.readonly
    try:
        counts = store.counts(skipped)
        report.sessions, report.records, report.echoes = counts.sessions, counts.records, counts.echoes
        for agent, n in counts.sessions_by_agent.items():
            report.agent(agent).sessions = n
        for agent, n in counts.records_by_agent.items():
            report.agent(agent).records = n
        report.projects = [ProjectStatus(*row) for row in counts.projects]
        report.last_sync = counts.last_sync
        started = store.get_meta("last_index_start")  # (before the end marks: a run ending meanwhile is no warning)
        report.last_index_run = store.get_meta("last_index_run")
        report.embeddings = EmbeddingStatus(counts.prose, counts.prose - counts.prose_pending, counts.prose_pending,
                                            foreground=foreground_running(cfg))
        _worker(cfg, store, report.embeddings)
        report.files = counts.files
        report.redactions = dict(counts.redactions)
        if cfg.env.get("BACKSCROLL_ARCHIVE_URL") or cfg.file_values.get("archive") or store.get_meta(LAST_PUSH):
            from backscroll.team.push import standing

            report.archive = standing(cfg, store)
        report.skipped_lines = counts.skipped_lines
        report.skipped_examples = [SkippedLine(shorten(p), ln, shorten(r)) for p, ln, r in counts.skipped_examples]
        report.lexical = lexical_state(cfg, store)
        report.warnings = agent_health(cfg, store, counts, report, started=started)
        if (why := embed.unusable()) is not None:
            report.warnings.append(f"meaning is not searched: {why}")
        if report.lexical.counts_drifted:
            from backscroll.status_check import DRIFT_IS_A_BUG, RECOUNT

            report.warnings.append(f"the record counts (record_counts) are out of step with the records, so status, "
                                   f"stats and list count wrong: {RECOUNT} ({DRIFT_IS_A_BUG})")
        # Unreadable files and directories (kept until they are read or gone) and rewritten-file notices.
        report.source_issues = [SourceIssue(shorten(p), k, shorten(r), at) for p, k, r, at in counts.source_issues]
        report.unfinished_lines = [UnfinishedLine(shorten(p), line, waiting, at)
                                   for p, line, waiting, size, at in counts.unfinished
                                   if _size(Path(disk_path(p))) == size]
        report.older_parser = _older_parser(store)
    finally:
        store.close()
    report.sizes = Sizes(
        store_bytes=sum(_size(cfg.db_path.with_name(cfg.db_path.name + s)) for s in ("", "-wal", "-shm")),
        lexical_index_bytes=_size(cfg.index_dir),
        vectors_bytes=_size(cfg.vectors_dir),
    )
