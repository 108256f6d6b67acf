"""Meaning in the background: on a big history words are searchable at once, and a search that leaves more
prose without vectors than it embeds itself starts one detached worker (``backscroll embed --background``)
that embeds it, newest first, at low priority, taking the store's write lock only to save each step (so a
search's sync, an ``index`` or a ``push`` never waits long for it; its steps: ``embedding``). One worker at a
time (its own lock file); it stops when nothing is left, another writer keeps the lock or an ``index`` or
``embed`` embeds in the foreground (the next one starts a minute later), and never switches the store's model; a
worker that failed or died is kept for ``status`` and the next one is started no sooner than an hour later.
``background = false`` (or ``BACKSCROLL_BACKGROUND=0``) turns it off; ``status`` shows its rate and what is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from backscroll.config import Config
from backscroll.indexes.files import private_files
from backscroll.store.db import Store
from backscroll.store.lock import file_lock, lock_held

LOCK_NAME = "embed-worker.lock"
REPORT_NAME = "embed-worker.json"  # the last worker's report (its own file: never waits on the store's writer)
STATE_KEY = "embed_worker"  # where a store's worker reported before (read when no report file is there)
SEARCH_EMBEDS = 64  # new prose records a search embeds itself (a new session: well under 2 s); more go to the worker
RETRY_AFTER_S = 3600  # after a worker failed
GIVE_WAY_S = 60  # after a worker gave way to another writer
TURN_WAIT_S = 5.0  # how long a step waits for the writer lock before the worker gives way and stops
NICE = 10


@dataclass(frozen=True)
class WorkerState:
    """What the last worker said: when it started and last saved, how much it did and how fast, and why it
    stopped if it failed."""

    running: bool
    started: float | None = None
    updated: float | None = None
    done: int = 0
    rate: float | None = None  # prose records per second
    error: str | None = None
    finished: bool = False
    gave_way: float | None = None  # when a step found the writer lock kept by another writer


def _lock_path(cfg: Config) -> Path:
    return cfg.home.value / LOCK_NAME


def _worker_lock(cfg: Config) -> AbstractContextManager[bool]:
    """The worker's own lock; yields False when another worker holds it."""
    return file_lock(_lock_path(cfg))


def running(cfg: Config) -> bool:
    """Whether a worker is at work on this data dir."""
    return lock_held(_lock_path(cfg))


def state(store: Store, cfg: Config) -> WorkerState | None:
    """The last worker's report (None when no worker ever ran)."""
    try:
        raw: str | None = (cfg.home.value / REPORT_NAME).read_text()
    except OSError:
        raw = store.get_meta(STATE_KEY)
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return WorkerState(running(cfg), data.get("started"), data.get("updated"), int(data.get("done") or 0),
                       data.get("rate"), data.get("error"), bool(data.get("finished")),
                       data.get("gave_way"))


def start(cfg: Config, store: Store, pending: int) -> bool:
    """Start a worker when ``pending`` prose records are more than a search embeds itself, embedding is on, no
    worker runs and none failed within the hour; True when one was started."""
    if pending <= SEARCH_EMBEDS or not cfg.embed.value or not cfg.background.value:
        return False
    from backscroll.embedding import foreground_running

    if running(cfg) or foreground_running(cfg):  # (an `index` or `embed` embeds it already)
        return False
    last = state(store, cfg)
    if last is not None and not last.finished and time.time() - (last.updated or 0) < RETRY_AFTER_S:
        return False  # the last one failed or died (killed, out of memory) within the hour
    if last is not None and last.gave_way and time.time() - last.gave_way < GIVE_WAY_S:
        return False  # another writer (an `index` embedding itself) kept the lock a moment ago
    import subprocess

    env = {**os.environ, "BACKSCROLL_HOME": str(cfg.home.value), "BACKSCROLL_CONFIG": str(cfg.config_file.value)}
    subprocess.Popen([sys.executable, "-P", "-m", "backscroll", "embed", "--background"], env=env, cwd=cfg.home.value,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True)
    return True


def work(cfg: Config) -> int:
    """The worker: embed what is pending in turns with other writers; returns the units embedded (0 when
    another worker is already at work, or the store's vectors are another model's)."""
    from backscroll import embedding
    from backscroll.indexes import embed
    from backscroll.indexes.vectors import Vectors

    with _worker_lock(cfg) as mine:
        if not mine:
            return 0
        with contextlib.suppress(OSError):
            os.nice(NICE)
        store = Store.open(cfg.db_path)
        started = time.time()
        report: dict[str, object] = {"started": started, "updated": started, "done": 0, "rate": None, "error": None,
                                     "finished": False}
        _save(cfg, report)  # a worker that dies before its first step is not started again at once

        turn = embedding.turns(cfg, store, TURN_WAIT_S, refused=lambda: report.update(gave_way=time.time()),
                               give_way=True)

        def step(done: int, _units: int) -> None:
            now = time.time()
            report.update(updated=now, done=done, rate=round(done / max(now - started, 1e-6), 2))
            _save(cfg, report)

        try:
            vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
            n = vecs.embed_in_turns(embed.load(bulk=True), turn, progress=step)  # the model loads before anything
            report.update(updated=time.time(), finished=True)  # (also when it gave way: said in gave_way)
            _save(cfg, report)
            return n
        except Exception as exc:  # kept for `status`; the next worker waits an hour
            store.rollback()
            report.update(updated=time.time(), error=f"{type(exc).__name__}: {exc}"[:300])
            _save(cfg, report)
            return 0
        finally:
            embedding.close(cfg, store, TURN_WAIT_S)


def _save(cfg: Config, report: dict) -> None:
    """Keep the worker's report in its own file, written whole (only the worker writes it, under its own lock). In
    the store it waited on the writer lock, and a worker that gave way to an ``index`` could not say so: it read as
    one that died, and none started for an hour."""
    path = cfg.home.value / REPORT_NAME
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError), private_files():
        tmp.write_text(json.dumps(report))
        os.replace(tmp, path)
