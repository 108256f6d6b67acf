"""``status --check``: the data dir checked in full, on request. Plain ``status`` reads counts from ``record_counts``
and so never reads a page that holds only records' text; this reads everything: SQLite's ``integrity_check`` of the
store, ``record_counts`` counted again from the records, the lexical index against the records, and the vector
matrix against the store's vectors. Each part says what it found and, for a problem, what to run (for the counts,
``rebuild --counts``, unless the lexical index needs the full ``rebuild``, which counts them again too). Also
``lexical_state``, the cheap comparison of the lexical index that plain ``status`` makes."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable

from backscroll.config import Config
from backscroll.errors import CORRUPT_HINT, BackscrollError
from backscroll.numbers import counted
from backscroll.status_types import CheckPart, LexicalStatus, StoreCheck
from backscroll.store.lock import writer_busy

STEPS = ("store", "record_counts", "lexical_index", "vectors")
Step = Callable[[str], None]  # told the part about to be checked (a progress line)
REBUILD = "run `backscroll rebuild`: it makes the lexical index again from the store, and counts the records again"
RECOUNT = "run `backscroll rebuild --counts`: it counts the records again into record_counts (seconds) and nothing else"
DRIFT_IS_A_BUG = "a count that drifted is a bug: please report it"
WRITING = "another backscroll process is writing: run the check again when it has finished"


Found = tuple[str, str, str | None]  # (state: ok, problem or skipped; what was found; what to run for a problem)


def check(cfg: Config, step: Step = lambda _part: None) -> StoreCheck:
    """Check the store of ``cfg`` and its indexes in full (a minute at millions of records: SQLite reads every
    page); ``step`` hears each part's name as it starts."""
    from backscroll.store import integrity

    t0 = time.perf_counter()
    result = StoreCheck()
    step("store")
    problems = integrity.integrity_problems(cfg.db_path)
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    result.parts.append(CheckPart("store", "problem", f"integrity_check: {'; '.join(problems[:3])}{more}",
                                  CORRUPT_HINT.format(db=cfg.db_path), round(time.perf_counter() - t0, 3))
                        if problems else CheckPart("store", "ok", "integrity_check: ok",
                                                   seconds=round(time.perf_counter() - t0, 3)))
    store = _open(cfg, result)
    if store is not None:
        try:
            _derived(cfg, store, result, step, busy=writer_busy(cfg))
        finally:
            store.close()
    result.sound = not result.problems()
    result.seconds = round(time.perf_counter() - t0, 3)
    return result


def _open(cfg: Config, result: StoreCheck):
    """The store, read only; None (the other parts skipped, saying why) when it cannot be opened."""
    from backscroll.store.db import Store

    try:
        return Store.open_readonly(cfg.db_path)
    except (BackscrollError, sqlite3.Error) as exc:
        why = f"the store cannot be read ({getattr(exc, 'message', None) or exc})"
        result.parts.extend(CheckPart(name, "skipped", why) for name in STEPS[1:])
        return None


def _derived(cfg: Config, store, result: StoreCheck, step: Step, busy: bool) -> None:
    """``record_counts``, the lexical index and the vector matrix, each against the store (a part that cannot be
    read in a damaged store is skipped, saying why)."""
    for name, fn in (("record_counts", _tally), ("lexical_index", _lexical), ("vectors", _vectors)):
        step(name)
        t0 = time.perf_counter()
        if busy and name != "record_counts":  # (its records and counts are read in one snapshot)
            result.parts.append(CheckPart(name, "skipped", WRITING))
            result.complete = False
            continue
        try:
            state, found, fix = fn(cfg, store)
        except sqlite3.DatabaseError as exc:
            state, found, fix = "skipped", f"could not be read in the store ({exc})", None
        except BackscrollError as exc:  # (a value of the store's own the part reads is damaged)
            state, found, fix = "problem", exc.message, exc.hint
        result.parts.append(CheckPart(name, state, found, fix, round(time.perf_counter() - t0, 3)))
    _one_mend(result)


def _one_mend(result: StoreCheck) -> None:
    """A full ``rebuild`` another part needs counts the records again too: the counts' fix then names it alone."""
    if any(p.fix == REBUILD for p in result.parts):
        for part in result.parts:
            if part.part == "record_counts" and part.state == "problem":
                part.fix = f"{REBUILD} (the lexical index needs it too; {DRIFT_IS_A_BUG})"


def _tally(_cfg: Config, store) -> Found:
    differ, records, counted = store.tally_drift()
    if not differ:
        return "ok", f"{records:,} records, as record_counts counts them", None
    return ("problem", f"record_counts is out of step with the records: {differ:,} of its rows differ (it counts "
            f"{counted:,} records, the store holds {records:,}); status, stats and list count from it",
            f"{RECOUNT} ({DRIFT_IS_A_BUG})")


def lexical_state(cfg: Config, store, exact: bool = False) -> LexicalStatus:
    """Whether the lexical index holds exactly the store's records (count and id sum; cheap; ``exact``: against the
    records counted themselves, not ``record_counts``).

    Documents for records above the watermark, and for deleted records not yet removed, are
    ``pending``: the next sync handles them. ``in_step`` false means ``backscroll index`` repairs.
    """
    from backscroll.indexes.lexical import LexicalDamaged, LexicalIndex

    n, total, pending = store.lexical_fingerprint(store.meta_count("lexical_watermark"), exact)
    state = LexicalStatus(expected=n, pending=pending)
    lex = LexicalIndex(cfg.index_dir)
    if not lex.open_for_read():
        state.older = lex.older()
        return state
    try:
        docs, doc_sum = lex.id_summary()
    except LexicalDamaged:
        return state
    state.readable, state.documents = True, docs
    same_generation = lex.generation == store.get_meta("lexical_generation")
    state.in_step = same_generation and (docs, doc_sum) == (n, total)
    if same_generation and not state.in_step and not exact:  # (rare: counted again, is it the index or the counts?)
        n, total, state.pending = store.lexical_fingerprint(store.meta_count("lexical_watermark"), True)
        state.in_step = state.counts_drifted = (docs, doc_sum) == (n, total)
        state.expected = n
    return state


def _lexical(cfg: Config, store) -> Found:
    lex = lexical_state(cfg, store, exact=True)
    if lex.in_step:
        pending = f", and {lex.pending:,} changes the next sync adds" if lex.pending else ""
        return "ok", f"{counted(lex.documents or 0, 'document')}, as the store's records{pending}", None
    if not lex.readable and store.readonly and cfg.index_dir.is_dir() and not os.access(cfg.index_dir, os.W_OK):
        return "skipped", "not opened in place in a data dir that cannot be written", None
    if lex.older:
        return "ok", "made by an earlier version of backscroll: the next search or `backscroll index` rebuilds it", None
    if not lex.readable:
        return "problem", f"the lexical index in {cfg.index_dir} is missing or cannot be read", REBUILD
    return ("problem", f"the lexical index is out of step with the store: {counted(lex.documents or 0, 'document')}, "
            f"{lex.expected:,} expected", REBUILD)


def _vectors(cfg: Config, store) -> Found:
    from backscroll.indexes.matrix_check import MATRIX_FIX, matrix_problem

    found, problem = matrix_problem(store, cfg.vectors_dir)
    return ("ok", found, None) if problem is None else ("problem", f"the vector matrix: {problem}",
                                                                 MATRIX_FIX.format(dir=cfg.vectors_dir))
