"""A sync whose call is cancelled (the MCP server's ``notifications/cancelled``) stops before its next file, as
Ctrl-C does: the groups of files it committed stay, the rest is read by the next sync, nothing twice."""

import threading

import pytest

from backscroll.ingest import sync as sync_module
from backscroll.ingest.report import Progress
from backscroll.ingest.sync import sync
from backscroll.interrupts import Cancelled, cancellable
from backscroll.store.db import Store
from backscroll.store.integrity import integrity_problems

FILES, PAIRS = 30, 5  # session files of 2 × PAIRS records


class CancelAt(Progress):
    """The progress a sync reports (the CLI draws its bar from it): the client cancels as file ``at`` is read."""

    def __init__(self, cancel: threading.Event, at: int):
        self.cancel, self.at, self.read = cancel, at, 0

    def advance(self, path: str, records: int) -> None:
        self.read += 1
        if self.read == self.at:
            self.cancel.set()


def test_a_cancelled_sync_keeps_what_it_committed_and_the_next_reads_the_rest(session_builder, backscroll_home,
                                                                              monkeypatch):
    monkeypatch.setattr(sync_module, "COMMIT_EVERY_RECORDS", 2 * 2 * PAIRS)  # committed two files at a time
    for i in range(FILES):
        s = session_builder.claude(project="big")
        for t in range(PAIRS):
            s.user(f"question {i}.{t}").assistant(f"answer {i}.{t}")
    cfg = backscroll_home.config()
    store = Store.open(cfg.db_path)
    try:
        cancel = threading.Event()
        with pytest.raises(Cancelled), cancellable(cancel):
            sync(store, cfg.roots, CancelAt(cancel, 7), quick=True)
        assert not store.conn.in_transaction
        assert store.record_count() == 6 * 2 * PAIRS, "the six files committed stay; the seventh was rolled back"
        assert store.source_issues() == {}, "the cancel is no file's failure"
        report = sync(store, cfg.roots, quick=True)
        assert report.unreadable == [] and report.records_added == (FILES - 6) * 2 * PAIRS
        assert store.record_count() == FILES * 2 * PAIRS
    finally:
        store.close()
    assert integrity_problems(cfg.db_path) == []
