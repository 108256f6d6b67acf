"""A session file found at another path: moved (its records follow it), copied, or holding only part of another."""

from __future__ import annotations

import shutil

from helpers import TESTS, rows

import backscroll

LEGACY_GEMINI = ("bccd7e84132f4363174c32276032828f82bba6370bda1fa716ab6924d4b64e8e/chats/"
                 "session-2026-09-14T10-02-7c1e9a4b.json")


def _index_from(home, folder):
    return backscroll.index(config=home.config(sources=(f"claude:{folder}",)))


def _paths(home) -> dict[str, set[str]]:
    return {"records": {r["source_path"] for r in rows(home, "SELECT DISTINCT source_path FROM records")},
            "sessions": {r["source_path"] for r in rows(home, "SELECT source_path FROM sessions")},
            "files": {r["path"] for r in rows(home, "SELECT path FROM source_files")}}


def test_a_moved_file_takes_its_records_along_and_what_it_gained(session_builder, backscroll_home,
                                                                 backscroll_index, backscroll_search):
    s = session_builder.claude(project="shop")
    s.user("the checkout total rounds half-cents the wrong way")
    s.assistant("Use banker's rounding in the checkout total.")
    backscroll_index()
    moved = backscroll_home.root / "elsewhere" / s.path.parent.name / s.path.name
    moved.parent.mkdir(parents=True)
    shutil.move(s.path, moved)
    s.path = moved
    s.user("and the refund total?")  # (it went on in its new place)
    outcome = _index_from(backscroll_home, backscroll_home.root / "elsewhere")
    assert outcome.report.records_added == 1
    assert _paths(backscroll_home) == {"records": {str(moved)}, "sessions": {str(moved)}, "files": {str(moved)}}
    hit = backscroll_search("checkout rounding", mode="lexical").results[0]
    assert hit.source_path == str(moved)
    assert len(rows(backscroll_home, "SELECT id FROM records")) == 3


def test_a_copy_whose_original_is_there_is_a_file_of_its_own(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude(project="shop")
    s.user("the checkout total rounds half-cents the wrong way")
    backscroll_index()
    copy = backscroll_home.root / "backup" / s.path.parent.name / s.path.name
    copy.parent.mkdir(parents=True)
    shutil.copy(s.path, copy)
    _index_from(backscroll_home, backscroll_home.root / "backup")
    assert _paths(backscroll_home)["records"] == {str(s.path)}
    assert len(rows(backscroll_home, "SELECT id FROM records")) == 1


def test_a_fork_under_another_name_never_takes_the_records_of_the_file_it_copied(session_builder, backscroll_home,
                                                                                backscroll_index):
    s = session_builder.claude(project="shop")
    s.user("the first question")
    s.user("the second question")
    fork = s.path.with_name("0a0a0a0a-0000-4000-8000-000000000001.jsonl")  # (sorts first: read first)
    backscroll_index()
    fork.write_text(s.path.read_text())  # (a fork copies the messages, uuids and all)
    backscroll_index()
    moved = backscroll_home.root / "renamed"
    s.path.parent.rename(moved)
    _index_from(backscroll_home, moved.parent)
    own = {r["source_path"] for r in rows(backscroll_home, "SELECT source_path FROM records WHERE session_id = ?",
                                          (s.session_id,))}
    assert own == {str(moved / s.path.name)}


def test_a_moved_file_once_rewritten_takes_what_it_kept_along(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude(project="shop")
    s.user("the first question")
    s.user("the second question")
    backscroll_index()
    s.path.write_text(s.path.read_text().splitlines(keepends=True)[1])  # (rewritten: the first is kept in the store)
    backscroll_index()
    moved = backscroll_home.root / "renamed"
    s.path.parent.rename(moved)
    _index_from(backscroll_home, moved.parent)
    assert _paths(backscroll_home) == {"records": {str(moved / s.path.name)}, "sessions": {str(moved / s.path.name)},
                                       "files": {str(moved / s.path.name)}}
    assert len(rows(backscroll_home, "SELECT id FROM records")) == 2


def test_a_moved_file_read_whole_takes_its_records_along(backscroll_home, backscroll_index):
    first = backscroll_home.home / ".gemini" / "tmp" / "a1" / "chats" / "session-2026-09-14T10-02-7c1e9a4b.json"
    first.parent.mkdir(parents=True)
    shutil.copy(TESTS / "data" / "gemini" / "tmp" / LEGACY_GEMINI, first)  # (Gemini rewrites it every turn)
    backscroll_index()
    before = rows(backscroll_home, "SELECT id, record_id FROM records ORDER BY id")
    moved = backscroll_home.home / ".gemini" / "tmp" / "b2"
    first.parent.parent.rename(moved)
    backscroll_index()
    assert _paths(backscroll_home)["records"] == {str(moved / "chats" / first.name)}
    assert rows(backscroll_home, "SELECT id, record_id FROM records ORDER BY id") == before
