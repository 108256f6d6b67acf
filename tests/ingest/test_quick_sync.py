"""The sync before every search looks only where something can have changed: changed directories,
recent files and a few others in turn; ``index`` looks everywhere. Nothing new is missed for long."""

from __future__ import annotations

import json
import os
import time

import pytest
from helpers import rows

from backscroll.ingest import quick
from backscroll.ingest.report import IndexReport, Progress
from backscroll.ingest.sync import sync
from backscroll.store.db import Store

DAY_NS = 24 * 3600 * 10**9


def _quick(home) -> IndexReport:
    store = Store.open(home.data / "backscroll.db")
    try:
        report = sync(store, home.config().roots, quick=True)
    finally:
        store.close()
    return report


def _age(*paths, days=3):
    """Set files (and their directories) back ``days``: written long ago, as most of a history is."""
    then = time.time_ns() - days * DAY_NS
    for p in paths:
        os.utime(p, ns=(then, then))
        os.utime(p.parent, ns=(then, then))


def _texts(home):
    return sorted(r["text"] for r in rows(home))


def test_unchanged_directories_and_old_files_are_not_looked_at(session_builder, backscroll_home, backscroll_index,
                                                                monkeypatch):
    sessions = [session_builder.claude(project=f"p{i}") for i in range(4)]
    for i, s in enumerate(sessions):
        s.user(f"first words {i}")
    _age(*(s.path for s in sessions))
    backscroll_index()
    monkeypatch.setattr(quick, "ROTATE", 0)
    assert _quick(backscroll_home).files_seen == 0  # the full index remembered every directory


def test_a_new_session_is_found_at_once_in_a_known_or_a_new_project(session_builder, backscroll_home,
                                                                    backscroll_index, monkeypatch):
    old = session_builder.claude(project="shop")
    old.user("an old session")
    _age(old.path)
    backscroll_index()
    monkeypatch.setattr(quick, "ROTATE", 0)
    session_builder.claude(project="shop").user("a new session beside it")
    session_builder.claude(project="garden").user("a session in a new project")
    session_builder.codex(project="shop").user("a codex session on a new day")
    report = _quick(backscroll_home)
    assert report.records_added == 3
    assert "a session in a new project" in _texts(backscroll_home)


def test_appends_to_recent_files_are_read_on_every_search(session_builder, backscroll_home, backscroll_index,
                                                          backscroll_search, monkeypatch):
    s = session_builder.claude()
    s.user("the first question")
    backscroll_index()
    monkeypatch.setattr(quick, "ROTATE", 0)
    s.assistant("the zanzibar answer")  # the directory is unchanged: the file is recent
    assert [h.text for h in backscroll_search("zanzibar", mode="lexical").results] == ["the zanzibar answer"]


def test_an_old_session_resumed_is_read_within_a_few_searches(session_builder, backscroll_home, backscroll_index,
                                                              monkeypatch):
    sessions = [session_builder.claude(project=f"p{i}") for i in range(3)]
    for s in sessions:
        s.user("long ago")
    _age(*(s.path for s in sessions))
    backscroll_index()
    monkeypatch.setattr(quick, "ROTATE", 1)
    monkeypatch.setattr(quick, "HOT_NS", 0)  # nothing counts as recent: only the turn finds it
    sessions[1].assistant("resumed today")
    _age(sessions[1].path, days=2)  # appended, but its mtime says old (a clock, a copy)
    added = [_quick(backscroll_home).records_added for _ in range(3)]
    assert sum(added) == 1 and "resumed today" in _texts(backscroll_home)


def test_a_directory_changed_while_it_was_listed_is_listed_again(tmp_path):
    then = time.time_ns() - DAY_NS
    os.utime(tmp_path, ns=(then, then))
    assert quick.dir_mtimes([str(tmp_path)], time.time_ns())[str(tmp_path)] == then
    assert quick.dir_mtimes([str(tmp_path)], then + 10**9)[str(tmp_path)] == -1  # changed as it was listed


def test_a_removed_directory_is_forgotten_and_its_records_kept(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude(project="gone")
    s.user("kept after the folder went")
    backscroll_index()
    s.path.unlink()
    s.path.parent.rmdir()
    _quick(backscroll_home)
    dirs = [r["path"] for r in rows(backscroll_home, "SELECT path FROM source_dirs")]
    assert str(s.path.parent) not in dirs
    assert _texts(backscroll_home) == ["kept after the folder went"]


@pytest.mark.parametrize("agent", ["cursor", "copilot"])
def test_agents_with_a_layout_of_their_own_are_looked_at_whole(session_builder, backscroll_home, backscroll_index,
                                                               agent):
    first = getattr(session_builder, agent)()
    first.user("before the index")
    backscroll_index()
    getattr(session_builder, agent)(session_id="second").user("written after it")
    assert _quick(backscroll_home).records_added >= 1
    assert "written after it" in _texts(backscroll_home)


def test_a_full_walk_that_finds_nothing_new_remembers_nothing_new(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude(project="shop")
    s.user("an old session")
    _age(s.path, s.path.parent)  # the project's folder and the root above it too
    backscroll_index()
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        look = quick.full_scan(store, list(backscroll_home.config().roots), {}, IndexReport())
        assert look.dirs and all(not d.seen and not d.gone for d in look.dirs)
        session_builder.claude(project="garden").user("a new project")
        look = quick.full_scan(store, list(backscroll_home.config().roots), {}, IndexReport())
        assert any(d.seen for d in look.dirs)
    finally:
        store.close()


def test_a_pruned_session_is_not_reported_unreadable(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("a session the agent prunes later")
    backscroll_index()
    s.path.unlink()  # recent, so the quick sync looks at it every time
    report = _quick(backscroll_home)
    assert report.unreadable == [] and _texts(backscroll_home) == ["a session the agent prunes later"]


def test_a_session_pruned_while_index_reads_the_others_is_no_failure(session_builder, backscroll_home):
    """Files the agent deleted after the walk found them (its 30-day clean-up during an index) were each reported
    "cannot read: No such file or directory", and index exited 4."""
    from backscroll.ingest.report import Progress

    sessions = [session_builder.claude(project=f"p{n}") for n in range(4)]
    for n, s in enumerate(sessions):
        s.user(f"session number {n}")

    class Pruning(Progress):  # (the agent, between the first file read and the others)
        def advance(self, path: str, records: int) -> None:
            for s in sessions:
                if str(s.path) != path:
                    s.path.unlink(missing_ok=True)

    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        report = sync(store, backscroll_home.config().roots, Pruning())
    finally:
        store.close()
    assert report.unreadable == [] and len(_texts(backscroll_home)) == 1, report.unreadable


def test_a_file_that_could_not_be_read_is_tried_again_by_the_next_search(session_builder, backscroll_home,
                                                                          backscroll_index):
    old = session_builder.claude(project="shop")
    old.user("an old session")
    _age(old.path)
    backscroll_index()
    target = backscroll_home.root / "later.jsonl"
    link = old.path.parent / "0d7c9f1e-8d3a-4b7e-9a55-3c0f2b1e6a10.jsonl"
    link.symlink_to(target)  # a new file the first look cannot read
    assert [p for p, _why in _quick(backscroll_home).unreadable] == [str(link)]
    later = session_builder.claude(project="scratch")
    later.user("written after the first look")
    os.replace(later.path, target)
    later.path.parent.rmdir()
    report = _quick(backscroll_home)
    assert report.unreadable == [] and "written after the first look" in _texts(backscroll_home)


class _CtrlCAfter(Progress):
    """A progress bar whose ``files``-th file brings Ctrl-C."""

    def __init__(self, files: int):
        self.left = files

    def advance(self, path: str, records: int) -> None:
        self.left -= 1
        if not self.left:
            raise KeyboardInterrupt


@pytest.mark.parametrize("group", [2, 10_000])
def test_an_interrupted_index_says_how_many_new_records_it_saved(session_builder, backscroll_home, monkeypatch,
                                                                 group):
    from backscroll.ingest import sync as sync_module

    for n in range(5):
        session_builder.claude(project="p").user(f"the ledger question {n}")
    monkeypatch.setattr(sync_module, "COMMIT_EVERY_RECORDS", group)
    said: list[str] = []
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        with pytest.raises(KeyboardInterrupt):
            sync(store, backscroll_home.config().roots, _CtrlCAfter(4), notify=said.append)
    finally:
        store.close()
    stored = len(rows(backscroll_home))
    assert stored == (4 if group == 2 else 0), stored  # (committed after the 2nd and 4th file)
    assert said == [f"reading interrupted: {stored} new records were saved (they are saved {group:,} at a time); "
                    "the next run reads the rest"]


def test_a_title_waiting_for_its_leaf_is_given_after_a_run_stopped_once_every_file_was_saved(
        session_builder, backscroll_home, backscroll_index, monkeypatch):
    """A summary titles the session that holds its leaf (often another file's record) at the end of the sync that
    stored both; a sync that read nothing looks no leaf up. A run stopped after its last group of files was saved,
    before that end, left the title waiting until some file changed: the next `index` read nothing, so never looked
    (a clean run titles the session)."""
    from backscroll.ingest import sync as sync_module

    leaf = session_builder.claude(project="ledger")
    leaf.user("/plan the ledger work")  # a slash command: the session's title until a better one comes
    leaf.assistant("the ledger reconciliation plan")
    other = session_builder.claude(project="notes")
    other.user("a note on something else")
    other.raw(json.dumps({"type": "summary", "summary": "Ledger reconciliation", "leafUuid": leaf.lastuuid_for}))
    monkeypatch.setattr(sync_module, "COMMIT_EVERY_RECORDS", 1)  # each file saved as soon as it is read
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        with pytest.raises(KeyboardInterrupt):  # Ctrl-C once both files were saved, before the sync's end
            sync(store, backscroll_home.config().roots, _CtrlCAfter(2))
    finally:
        store.close()
    backscroll_index(embed=False)
    titles = {r["session_id"]: r["title"] for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert titles[leaf.session_id] == "Ledger reconciliation", titles


def test_records_stored_with_redaction_off_by_a_run_stopped_once_every_file_was_saved_are_redacted_later(
        session_builder, backscroll_home, backscroll_index, monkeypatch):
    """The store says it holds records stored with redaction off (so that the first command with it on redacts
    them) at the end of the sync that stored them. A run stopped after its last group of files was saved, before
    that end, left the store saying it was redacted under today's rules: the secrets were never redacted."""
    from backscroll.ingest import sync as sync_module

    session_builder.claude(project="ledger").user("the ledger reconciliation")
    backscroll_index(embed=False)  # redaction on: the store is redacted under today's rules
    key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    for n in range(2):
        session_builder.claude(project="deploy").user(f"deploy {n} with the token {key}")
    monkeypatch.setattr(sync_module, "COMMIT_EVERY_RECORDS", 1)  # each file saved as soon as it is read
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        with pytest.raises(KeyboardInterrupt):  # redaction off (redactor None); Ctrl-C once both files were saved
            sync(store, backscroll_home.config().roots, _CtrlCAfter(2), redactor=None)
    finally:
        store.close()
    assert sum(key in t for t in _texts(backscroll_home)) == 2
    backscroll_index(embed=False)  # redaction on again
    assert not [t for t in _texts(backscroll_home) if key in t]
