"""The derived indexes stay in step with the store: ids never reused, damage rebuilt, files private."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys

import numpy as np
import pytest

import backscroll
from backscroll.indexes.lexical import LexicalIndex
from backscroll.store.db import Store
from backscroll.store.lock import writer_lock


def _lex_ids(home) -> list[int]:
    lex = LexicalIndex(home.config().index_dir)
    assert lex.open_for_read()
    return sorted(lex.doc_ids())


def _store_ids(home) -> list[int]:
    conn = sqlite3.connect(home.data / "backscroll.db")
    try:
        return [r[0] for r in conn.execute("SELECT id FROM records ORDER BY id")]
    finally:
        conn.close()


def _session(session_builder, words: str, n: int = 3):
    s = session_builder.claude()
    for i in range(n):
        s.user(f"{words} question number {i} about the queue")
        s.assistant(f"{words} answer number {i} about the queue")
    return s


def _damage(path, start: float = 0.25, end: float = 0.5) -> None:
    """Scramble the middle of a file, keeping its length and footer (bit rot, a torn copy)."""
    b = bytearray(path.read_bytes())
    for k in range(int(len(b) * start), int(len(b) * end)):
        b[k] = (b[k] * 7 + 13) % 256
    path.write_bytes(bytes(b))


def _generation(home):
    index_dir = home.config().index_dir
    current = index_dir / "CURRENT"
    return index_dir / current.read_text() if current.exists() else index_dir


# -- 2: ids never reused, deletions real, consistency checked and repaired -----------------------

def test_a_rewritten_session_leaves_no_ghost_documents(session_builder, backscroll_home, backscroll_index,
                                                       backscroll_search):
    s = _session(session_builder, "zebraold", 4)
    backscroll_index(embed=False)
    s.path.write_bytes(b"")  # rewritten in place (a rewind, an in-place tool update): shorter, new text
    s.user("kiwinew question after the rewind")
    s.assistant("kiwinew answer after the rewind")
    backscroll_index(embed=False)
    assert {h.text for h in backscroll_search("kiwinew", mode="lexical").results} == \
        {"kiwinew question after the rewind", "kiwinew answer after the rewind"}
    # the permanent record keeps what the file no longer holds (issue 13, item 3), and each kept
    # record is found once, by its own row
    old = backscroll_search("zebraold", mode="lexical", limit=50).results
    assert old and all("zebraold" in h.text for h in old)
    assert _lex_ids(backscroll_home) == _store_ids(backscroll_home)


def test_ids_are_never_reused_across_incremental_rewrites(session_builder, backscroll_home, backscroll_index):
    s = _session(session_builder, "first", 2)
    backscroll_index(embed=False)
    seen = set(_store_ids(backscroll_home))
    for round_ in range(3):
        s.path.write_bytes(b"")
        s.user(f"round {round_} rewritten question")
        backscroll_index(embed=False)
        now = set(_store_ids(backscroll_home))
        new = now - seen  # earlier records stay in the permanent record; new ones never take their ids
        assert new and min(new) > max(seen)
        seen |= now
        assert _lex_ids(backscroll_home) == sorted(now)


def test_status_reports_and_index_repairs_an_out_of_step_index(session_builder, backscroll_home, backscroll_index):
    import tantivy
    from tantivy import Query

    from backscroll.indexes.lexical import SCHEMA

    _session(session_builder, "walrus", 3)
    backscroll_index(embed=False)
    assert backscroll.status(config=backscroll_home.config())["lexical"]["in_step"] is True
    lex = LexicalIndex(backscroll_home.config().index_dir)
    assert lex.open_for_read() and lex.index is not None
    w = lex.index.writer(heap_size=15_000_000)
    w.delete_documents_by_query(Query.term_set_query(SCHEMA, "id", [_store_ids(backscroll_home)[0]]))
    ghost = tantivy.Document()
    ghost.add_unsigned("id", 987654)
    ghost.add_text("text", "walrus ghost")
    w.add_document(ghost)
    w.commit()
    w.wait_merging_threads()
    info = backscroll.status(config=backscroll_home.config())["lexical"]
    assert info["in_step"] is False and info["readable"] is True
    out = backscroll_index(embed=False)
    assert any("out of step" in n for n in out.notes)
    assert _lex_ids(backscroll_home) == _store_ids(backscroll_home)
    assert backscroll.status(config=backscroll_home.config())["lexical"]["in_step"] is True


def test_status_json_has_the_lexical_check(session_builder, backscroll_home, backscroll_index):
    _session(session_builder, "otter", 1)
    backscroll_index(embed=False)
    r = subprocess.run([sys.executable, "-m", "backscroll", "status", "--json"], capture_output=True, text=True,
                       env=os.environ)
    assert r.returncode == 0
    lexical = json.loads(r.stdout)["lexical"]
    assert lexical["in_step"] is True and lexical["documents"] == len(_store_ids(backscroll_home))


def test_migration_005_keeps_ids_and_starts_the_sequence_above_them(tmp_path):
    from sqlite_utils import Database

    from backscroll.store import schema as migrations

    path = tmp_path / "backscroll.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrations.migrations.apply(Database(conn), stop_before="m005_record_ids_never_reused")
    conn.execute("PRAGMA user_version = 4")
    for rid in (3, 7):
        conn.execute("INSERT INTO records (id, record_id, session_id, agent, role, content_type, source_path, line, "
                     "text, content_hash) VALUES (?, ?, 's', 'claude', 'user', 'text', 'p', 1, 't', 'h')",
                     (rid, f"r{rid}"))
    conn.execute("INSERT INTO tombstones (id) VALUES (9)")
    conn.execute("INSERT INTO meta (key, value) VALUES ('lexical_watermark', '8')")
    conn.close()
    store = Store.open(path)
    try:
        assert [r[0] for r in store.conn.execute("SELECT id FROM records ORDER BY id")] == [3, 7]
        store.conn.execute("INSERT INTO records (record_id, session_id, agent, role, content_type, source_path, line, "
                           "text, content_hash) VALUES ('new', 's', 'claude', 'user', 'text', 'p', 1, 't', 'h')")
        assert store.conn.execute("SELECT id FROM records WHERE record_id = 'new'").fetchone()[0] == 10
        assert store.get_meta("lexical_watermark") is None  # everything is indexed again
        assert {r[0] for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records'")} >= {
            "idx_records_record_id", "records_pending_units", "records_vector_seq", "records_echo_calls"}
    finally:
        store.close()


# -- 10: a damaged segment ------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["fast", "term"])
def test_a_damaged_segment_is_rebuilt_and_search_answers(session_builder, backscroll_home, backscroll_index,
                                                         backscroll_search, suffix):
    _session(session_builder, "durable", 5)
    backscroll_index(embed=False)
    for p in _generation(backscroll_home).iterdir():
        if p.suffix == "." + suffix:
            _damage(p)
    result = backscroll_search("durable", mode="lexical", sync=False)
    assert result.results and all("durable" in h.text for h in result.results)
    assert any("rebuil" in n for n in result.notes)
    assert _lex_ids(backscroll_home) == _store_ids(backscroll_home)


def test_index_notices_a_damaged_segment(session_builder, backscroll_home, backscroll_index):
    _session(session_builder, "durable", 5)
    backscroll_index(embed=False)
    for p in _generation(backscroll_home).iterdir():
        if p.suffix == ".fast":
            _damage(p)
    out = backscroll_index(embed=False)
    assert any("rebuild" in n for n in out.notes)
    assert _lex_ids(backscroll_home) == _store_ids(backscroll_home)


def test_a_damaged_index_that_cannot_be_rebuilt_gives_a_json_error(session_builder, backscroll_home,
                                                                     backscroll_index):
    _session(session_builder, "durable", 5)
    backscroll_index(embed=False)
    for p in _generation(backscroll_home).iterdir():
        if p.suffix == ".fast":
            _damage(p)
    with writer_lock(backscroll_home.config()) as acquired:  # another process is writing
        assert acquired
        r = subprocess.run([sys.executable, "-m", "backscroll", "search", "durable", "--json", "--mode", "lexical"],
                           capture_output=True, text=True, env=os.environ)
    assert r.returncode != 0 and r.stdout == ""
    assert "PanicException" not in r.stderr and "Traceback" not in r.stderr
    error = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] in ("damaged-index", "locked") and error["hint"]


# -- 11: the vector cache -------------------------------------------------------------------------

def _embedded(session_builder, backscroll_index, backscroll_home):
    from backscroll.indexes import embed as embed_mod
    from backscroll.indexes.vectors import Vectors

    _session(session_builder, "vector", 4)
    backscroll_index(embed=True)
    store = Store.open(backscroll_home.data / "backscroll.db")
    vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
    return store, vecs


@pytest.mark.parametrize("content", [b"", b"\x93NUMPY garbage that is not an array"])
def test_an_empty_or_garbage_ids_file_is_rebuilt(session_builder, backscroll_home, backscroll_index,
                                                 backscroll_search, content):
    store, vecs = _embedded(session_builder, backscroll_index, backscroll_home)
    try:
        clean = [h.rowid for h in backscroll_search("vector answer queue", mode="semantic").results]
        ids_path = vecs._paths()[2]
        ids_path.write_bytes(content)
        again = backscroll_search("vector answer queue", mode="semantic", rerun=True)
        assert [h.rowid for h in again.results] == clean
        assert any("vector cache" in n for n in again.notes)
        assert vecs.load()[1] is not None and not vecs.cache_damaged  # rewritten by the search
    finally:
        store.close()


def test_garbage_matrix_bytes_are_detected_not_ranked(session_builder, backscroll_home, backscroll_index,
                                                     backscroll_search):
    store, vecs = _embedded(session_builder, backscroll_index, backscroll_home)
    try:
        clean = [h.rowid for h in backscroll_search("vector answer queue", mode="semantic").results]
        _damage(vecs._paths()[0], 0.3, 0.9)
        base_ids, base, *_ = vecs.load()
        assert base is None and vecs.cache_damaged
        assert [h.rowid for h in backscroll_search("vector answer queue", mode="semantic", rerun=True).results] == clean
        assert backscroll_index(embed=True) is not None
        fresh = type(vecs)(store, vecs.dir, vecs.model)
        assert fresh.load()[1] is not None and not fresh.cache_damaged
    finally:
        store.close()


def test_the_matrix_files_and_directory_are_fsynced(session_builder, backscroll_home, backscroll_index,
                                                    monkeypatch):
    store, vecs = _embedded(session_builder, backscroll_index, backscroll_home)
    synced: list[str] = []
    real = os.fsync

    def spy(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    try:
        vecs.write_matrix()
    finally:
        store.close()
    names = [os.path.basename(p) for p in synced]
    assert any(n.endswith(f".ids.npy.{os.getpid()}.tmp.npy") for n in names)
    assert any(n.endswith(f".int8.npy.{os.getpid()}.tmp.npy") for n in names)
    assert str(vecs.dir) in synced


# -- 12: searches during a rebuild ----------------------------------------------------------------

def test_searches_during_a_rebuild_use_the_old_index(session_builder, backscroll_home, backscroll_index):
    _session(session_builder, "steady", 3)
    backscroll_index(embed=False)
    seen: list[int] = []

    class Midway:
        def start(self, total):
            pass

        def add(self, n):  # the rebuild is half done: another search arrives
            r = backscroll.search("steady", mode="lexical", config=backscroll_home.config(), sync=True)
            seen.append(len(r.results))

        def finish(self):
            pass

    assert backscroll.rebuild(config=backscroll_home.config(), lexical_progress=Midway()) == 6
    assert seen == [6]
    assert _lex_ids(backscroll_home) == _store_ids(backscroll_home)
    assert [p.name for p in backscroll_home.config().index_dir.iterdir() if p.name.startswith("gen-")] \
        == [(backscroll_home.config().index_dir / "CURRENT").read_text()]



def test_what_a_stopped_rebuild_began_is_cleared_by_the_next_write(session_builder, backscroll_home, backscroll_index):
    """A rebuild stopped halfway (Ctrl-C) left its new generation beside the one in use, counted in status's size,
    until another full rebuild; the next sync under the writer lock removes it."""
    from backscroll.indexes.lexical import LexicalIndex

    _session(session_builder, "steady", 3)
    backscroll_index(embed=False)
    folder = backscroll_home.config().index_dir
    LexicalIndex(folder).create()  # (begun, never published: as a stopped rebuild leaves it)
    gens = lambda: sorted(p.name for p in folder.iterdir() if p.name.startswith("gen-"))  # noqa: E731
    assert len(gens()) == 2
    r = backscroll.search("steady", mode="lexical", config=backscroll_home.config(), sync=True)
    assert r.results and gens() == [(folder / "CURRENT").read_text()]


def test_a_stopped_rebuild_says_the_index_in_use_is_unchanged(session_builder, backscroll_home, backscroll_index,
                                                              monkeypatch):
    from typer.testing import CliRunner

    from backscroll.cli.app import app
    from backscroll.indexes.lexical import LexicalIndex

    _session(session_builder, "steady", 1)
    backscroll_index(embed=False)

    def stopped(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(LexicalIndex, "rebuild", stopped)
    r = CliRunner().invoke(app, ["rebuild"])
    assert r.exit_code != 0 and "searches still use the index as it was" in r.stderr, r.stderr
    assert "the next run reads the rest" not in r.stderr

# -- 13: orphan embeddings ------------------------------------------------------------------------

def test_embeddings_of_replaced_records_are_pruned(session_builder, backscroll_home, backscroll_index):
    s = _session(session_builder, "orphan", 4)
    backscroll_index(embed=True)
    # rewritten in place: the same records (same ids) now hold other text, so their old units are orphans
    s.path.write_text(s.path.read_text().replace("orphan", "renamed"))
    backscroll_index(embed=True)
    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    try:
        units = {r[0] for r in conn.execute("SELECT unit_hash FROM records WHERE unit_hash != ''")}
        stored = {r[0] for r in conn.execute("SELECT content_hash FROM embeddings")}
    finally:
        conn.close()
    assert stored == units and units


# -- 19: owner-only files -------------------------------------------------------------------------

def test_derived_files_are_owner_only(session_builder, backscroll_home, backscroll_index):
    old = os.umask(0o022)
    try:
        _session(session_builder, "private", 2)
        backscroll_index(embed=True)
        backscroll.rebuild(config=backscroll_home.config())
    finally:
        os.umask(old)
    loose = []
    for base in (backscroll_home.config().index_dir, backscroll_home.config().vectors_dir):
        assert base.is_dir()
        for dirpath, dirs, files in os.walk(base):
            for d in [dirpath, *(os.path.join(dirpath, x) for x in dirs)]:
                if stat.S_IMODE(os.stat(d).st_mode) != 0o700:
                    loose.append(d)
            for f in files:
                if stat.S_IMODE(os.stat(os.path.join(dirpath, f)).st_mode) != 0o600:
                    loose.append(os.path.join(dirpath, f))
    assert loose == []


@pytest.mark.parametrize("suffix", ["idx", "term", "fast"])
def test_a_damaged_segment_never_prints_a_rust_panic(session_builder, backscroll_home, backscroll_index, suffix):
    """Tantivy panics on some damaged files and Rust prints the panic (and a backtrace) on stderr
    before Python sees it: a person sees only our words."""
    _session(session_builder, "durable", 5)
    backscroll_index(embed=False)
    for p in _generation(backscroll_home).iterdir():
        if p.suffix == "." + suffix:
            _damage(p)
    env = {**os.environ, "RUST_BACKTRACE": "1", "HOME": str(backscroll_home.home),
           "BACKSCROLL_HOME": str(backscroll_home.data)}
    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "durable", "--json", "--mode", "lexical",
                        "--no-sync"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and json.loads(r.stdout)["results"], r.stderr
    assert "panicked" not in r.stderr and "backtrace" not in r.stderr, r.stderr
    assert "lexical index" in r.stderr


def test_an_untouched_matrix_is_not_read_in_full_to_be_checked(session_builder, backscroll_home, backscroll_index,
                                                                monkeypatch):
    """A query reads the int8 rows only to score them: the checksum of the whole matrix is taken again only
    when the file is not the one written (a million records: 384 MB read twice per query)."""
    from backscroll.indexes import matrix

    store, vecs = _embedded(session_builder, backscroll_index, backscroll_home)
    try:
        checked: list[np.dtype] = []
        real = matrix._crc

        def spy(arr, start=0):
            checked.append(arr.dtype)
            return real(arr, start)

        monkeypatch.setattr(matrix, "_crc", spy)
        assert vecs.load()[1] is not None and not vecs.cache_damaged
        assert np.dtype(np.int8) not in checked
        path = vecs._paths()[0]
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1))  # the same bytes, touched
        assert vecs.load()[1] is not None and np.dtype(np.int8) in checked
    finally:
        store.close()


@pytest.mark.parametrize("folder", ["index", "vectors"])
def test_a_file_where_a_derived_index_keeps_its_folder_is_named_not_an_internal_error(
        session_builder, backscroll_home, backscroll_index, folder):
    from backscroll.errors import CorruptStoreError

    _session(session_builder, "cobalt")
    backscroll_index()
    path = backscroll_home.data / folder
    subprocess.run(["rm", "-rf", str(path)], check=True)
    path.write_text("x")
    with pytest.raises(CorruptStoreError, match=f"{folder} is a file, where backscroll keeps a search index") as err:
        backscroll.search("cobalt queue", config=backscroll_home.config(), mode="hybrid")
    assert err.value.hint and "move it aside" in err.value.hint


def test_the_words_bar_counts_the_records_it_reads_not_the_ids_between(session_builder, backscroll_home,
                                                                         backscroll_index):
    """Ids have gaps (a record replaced or taken out): the bar ended at 966/967."""
    import sqlite3

    _session(session_builder, "steady", 3)
    backscroll_index(embed=False)
    conn = sqlite3.connect(backscroll_home.config().db_path)
    conn.execute("DELETE FROM records WHERE id = (SELECT min(id) FROM records)")
    conn.commit()
    conn.close()
    counted: dict[str, int] = {"total": 0, "done": 0}

    class Bar:
        def start(self, total):
            counted["total"] = total

        def add(self, n):
            counted["done"] += n

        def finish(self):
            pass

    assert backscroll.rebuild(config=backscroll_home.config(), lexical_progress=Bar()) == 5
    assert counted == {"total": 5, "done": 5}
