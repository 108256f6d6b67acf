"""``status --check``: plain status reads counts, not the records, so a damaged page of records' text, a record count
that drifted, a lost lexical index or a damaged vector matrix go unseen by it; the check finds each, says what to
run, and exits 7. Real stores, indexes and matrices in a temporary data dir (the fake embedder)."""

import json
import os
import shutil
import sqlite3

import pytest
from helpers import run_cli

import backscroll

MARKER = b"MIDDLE-MARKER-7f3a"


def error_of(stderr: str) -> dict:
    return json.loads(stderr.strip().splitlines()[-1])["error"]


@pytest.fixture
def stored(session_builder, backscroll_index, backscroll_home):
    for i in range(40):
        s = session_builder.claude(project=f"p{i % 4}")
        s.user((MARKER.decode() + " " if i == 20 else "") + f"session {i}: what about module {i}? " + "lorem " * 60)
        s.assistant(f"module {i} is fine " + "ipsum " * 80)
    backscroll_index(embed=True)
    return backscroll_home


def checked(home, *extra) -> tuple[int, dict, str]:
    r = run_cli(home, "status", "--check", "--json", *extra)
    return r.returncode, json.loads(r.stdout), r.stderr


def parts(doc: dict) -> dict[str, dict]:
    return {p["part"]: p for p in doc["check"]["parts"]}


def problem_in(home, part: str) -> tuple[dict, dict]:
    """The check's ``part``, which must have failed it (exit 7), and the whole document."""
    code, doc, _err = checked(home)
    found = parts(doc)[part]
    assert code == 7 and found["state"] == "problem", (code, found)
    return found, doc


def test_a_sound_store_passes_and_says_so(stored):
    code, doc, _err = checked(stored)
    assert code == 0
    assert doc["check"]["sound"] is True and doc["store_error"] is None
    found = parts(doc)
    assert list(found) == ["store", "record_counts", "lexical_index", "vectors"]
    assert all(p["state"] == "ok" and p["fix"] is None for p in found.values()), found
    assert found["vectors"]["found"].endswith("rows, as the store's vectors"), found["vectors"]
    human = run_cli(stored, "status", "--check")
    assert human.returncode == 0 and "the store and its indexes: sound" in human.stdout
    assert json.loads(run_cli(stored, "status", "--json").stdout)["check"] is None, "only when asked for"
    report = backscroll.status(config=stored.config(), check=True)  # (the library's status)
    assert report.check is not None and report.check.sound and report.to_dict()["check"]["sound"] is True


def damage_a_page_of_text(home) -> None:
    """The page that holds one record's text overwritten at its head (nothing else on it)."""
    db = home.data / "backscroll.db"
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    page = data.find(MARKER) // page_size
    data[page * page_size: page * page_size + 12] = b"\xff" * 12
    db.write_bytes(bytes(data))


def drift_the_counts(home) -> list[tuple]:
    """One row of ``record_counts`` counting two records too many (as a bug would leave it); the table as it then
    is."""
    conn = sqlite3.connect(home.data / "backscroll.db")
    conn.execute("UPDATE record_counts SET records = records + 2 WHERE rowid = (SELECT min(rowid) FROM record_counts)")
    conn.commit()
    rows = conn.execute("SELECT * FROM record_counts ORDER BY rowid").fetchall()
    conn.close()
    return rows


def test_a_damaged_page_of_records_text_is_found_where_plain_status_sees_nothing(stored):
    db = stored.data / "backscroll.db"
    damage_a_page_of_text(stored)
    assert run_cli(stored, "status", "--json").returncode == 0, "status counts without reading the text"
    code, doc, err = checked(stored)
    assert code == 7 and doc["check"]["sound"] is False
    store = parts(doc)["store"]
    assert store["state"] == "problem" and store["found"].startswith("integrity_check: ")
    assert ".recover" in store["fix"] and str(db) in store["fix"]
    assert error_of(err)["kind"] == "check-failed" and "store" in error_of(err)["message"]
    human = run_cli(stored, "status", "--check")
    assert human.returncode == 7 and "problem" in human.stdout and "sqlite3" in human.stdout
    assert "hint: each problem above says what to run" in human.stderr


def test_record_counts_that_drifted_are_found_and_rebuild_counts_them_again(stored):
    drift_the_counts(stored)
    tally, doc = problem_in(stored, "record_counts")
    assert "1 of its rows differ" in tally["found"] and "backscroll rebuild" in tally["fix"], tally
    assert parts(doc)["lexical_index"]["state"] == "ok", "the index is checked against the records themselves"
    assert run_cli(stored, "rebuild").returncode == 0
    code, doc, _err = checked(stored)
    assert code == 0 and parts(doc)["record_counts"]["state"] == "ok"


def test_plain_status_names_counts_that_drifted_not_the_lexical_index(stored):
    """Plain status compares the lexical index with record_counts: counts that drifted read as an index out of step,
    and the fix it named (`backscroll index`) mends nothing."""
    drift_the_counts(stored)
    doc = json.loads(run_cli(stored, "status", "--json").stdout)
    assert doc["lexical"]["in_step"] and doc["lexical"]["counts_drifted"], doc["lexical"]
    assert any("rebuild --counts" in w for w in doc["warnings"]), doc["warnings"]
    human = run_cli(stored, "status").stdout
    assert "out of step with the store" not in human and "rebuild --counts" in human, human
    assert run_cli(stored, "rebuild", "--counts").returncode == 0
    doc = json.loads(run_cli(stored, "status", "--json").stdout)
    assert doc["lexical"]["in_step"] and not doc["lexical"]["counts_drifted"] and not doc["warnings"], doc


def test_rebuild_counts_mends_the_counts_alone_and_the_check_then_passes(stored):
    """The light mend ``status --check`` names for counts that drifted: seconds, where ``rebuild`` makes the lexical
    index again too (minutes at 20k sessions)."""
    drift_the_counts(stored)
    tally, _doc = problem_in(stored, "record_counts")
    assert "`backscroll rebuild --counts`" in tally["fix"], tally
    index = stored.config().index_dir
    generation = (index / "CURRENT").read_text()
    mended = run_cli(stored, "rebuild", "--counts")
    assert mended.returncode == 0, mended.stderr
    said = "counted the store's records again: record_counts had drifted, 1 row changed, in "
    assert mended.stderr.startswith(said), mended.stderr
    assert (index / "CURRENT").read_text() == generation, "the lexical index is left as it was"
    code, doc, _err = checked(stored)
    assert code == 0 and parts(doc)["record_counts"]["state"] == "ok", doc
    again = run_cli(stored, "rebuild", "--counts", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["counts_changed"] == 0, again.stderr
    drift_the_counts(stored)
    assert backscroll.rebuild(config=stored.config(), counts=True) == 1  # (the library's)
    assert checked(stored)[0] == 0
    drift_the_counts(stored)
    whole = run_cli(stored, "rebuild")  # (the full rebuild mends them too, and says so)
    assert whole.returncode == 0 and "the record counts had drifted: 1 row mended" in whole.stderr, whole.stderr
    assert "drifted" not in run_cli(stored, "rebuild").stderr, "and says nothing when they had not"
    assert checked(stored)[0] == 0


def test_rebuild_counts_refuses_a_damaged_store_and_writes_nothing(stored):
    drifted = drift_the_counts(stored)
    damage_a_page_of_text(stored)
    refused = run_cli(stored, "rebuild", "--counts", "--json")
    assert refused.returncode == 1, refused.stderr
    error = error_of(refused.stderr)
    assert error["kind"] == "corrupt-store" and "nothing was written" in error["message"], error
    conn = sqlite3.connect(stored.data / "backscroll.db")
    try:
        assert conn.execute("SELECT * FROM record_counts ORDER BY rowid").fetchall() == drifted
    finally:
        conn.close()


def test_the_check_names_rebuild_counts_only_when_the_counts_alone_need_a_rebuild(stored):
    """Counts that drifted, with a matrix damaged too (its own fix), still take ``--counts``; with a lexical index
    lost too, the full ``rebuild`` mends both, and is named for both."""
    drift_the_counts(stored)
    int8 = next(stored.config().vectors_dir.glob("*.int8.npy"))
    int8.write_bytes(int8.read_bytes()[:-8])
    tally, doc = problem_in(stored, "record_counts")
    assert parts(doc)["vectors"]["state"] == "problem", doc
    assert "`backscroll rebuild --counts`" in tally["fix"], tally
    shutil.rmtree(stored.config().index_dir)
    tally, doc = problem_in(stored, "record_counts")
    assert "`backscroll rebuild`" in tally["fix"] and "--counts" not in tally["fix"], tally
    assert "lexical index needs it too" in tally["fix"], tally
    human = run_cli(stored, "status", "--check")
    assert human.returncode == 7 and "--counts" not in human.stdout, human.stdout
    assert run_cli(stored, "rebuild").returncode == 0
    found = parts(checked(stored)[1])
    assert found["record_counts"]["state"] == found["lexical_index"]["state"] == "ok", found


@pytest.mark.parametrize("harm", ["missing", "unreadable", "out of step"])
def test_a_lost_or_damaged_lexical_index_is_found_and_rebuild_mends_it(stored, harm):
    index = stored.config().index_dir
    generation = index / (index / "CURRENT").read_text().strip()
    if harm == "missing":
        shutil.rmtree(index)
    elif harm == "unreadable":
        for f in generation.iterdir():
            if f.name.endswith((".idx", ".term", ".store", ".fast")):
                f.write_bytes(b"\x00garbage" * 64)
        (generation / "meta.json").write_text("{not json")
    else:
        from backscroll.indexes.lexical import LexicalIndex

        lex = LexicalIndex(index)
        assert lex.open_for_read()
        lex._delete_ids(writer := lex._opened().writer(), [1])
        writer.commit()
        writer.wait_merging_threads()
    lexical, _doc = problem_in(stored, "lexical_index")
    assert "backscroll rebuild" in lexical["fix"], lexical
    assert ("out of step" if harm == "out of step" else "missing or cannot be read") in lexical["found"]
    assert run_cli(stored, "rebuild").returncode == 0
    assert checked(stored)[0] == 0


def test_a_matrix_whose_rows_changed_under_an_unchanged_stat_is_found(stored):
    """A query trusts an int8 file its meta saw written (size and mtime); the check reads it whole."""
    vectors = stored.config().vectors_dir
    int8 = next(vectors.glob("*.int8.npy"))
    st = int8.stat()
    data = bytearray(int8.read_bytes())
    data[-1] ^= 0x55
    int8.write_bytes(bytes(data))
    os.utime(int8, ns=(st.st_atime_ns, st.st_mtime_ns))
    code, doc, _err = checked(stored)
    assert code == 7
    vec = parts(doc)["vectors"]
    assert vec["state"] == "problem" and "checksum" in vec["found"] and str(vectors) in vec["fix"], vec
    shutil.rmtree(vectors)  # (as the fix says)
    assert run_cli(stored, "embed").returncode == 0
    assert checked(stored)[0] == 0


@pytest.mark.parametrize("harm", ["no int8 checksum", "a pass past any count"])
def test_a_matrix_meta_file_of_the_wrong_kinds_is_a_problem_the_check_names(stored, harm):
    """A meta file edited by hand or read off a bad disk: the check ended in an internal error (KeyError,
    OverflowError) and said nothing else; a search by meaning reads the store's vectors meanwhile."""
    meta_file = next(stored.config().vectors_dir.glob("*.meta.json"))
    meta = json.loads(meta_file.read_text())
    if harm == "no int8 checksum":  # (its int8_stat still matches: a query would not look for it)
        del meta["crc32"]["int8"]
    else:
        meta["seq"] = 10**30
    meta_file.write_text(json.dumps(meta))
    vec, doc = problem_in(stored, "vectors")
    assert "fail their checks" in vec["found"] or "cannot be read" in vec["found"], vec
    assert parts(doc)["lexical_index"]["state"] == "ok"
    hits = json.loads(run_cli(stored, "search", "module 7", "--json", "--no-sync").stdout)["results"]
    assert hits and hits[0]["matched_by"], "searched as ever, the vectors read from the store"


@pytest.mark.parametrize("key", ["vector_seq", "lexical_watermark"])
def test_a_store_counter_that_is_no_count_is_named_not_an_internal_error(stored, key):
    conn = sqlite3.connect(stored.config().db_path)
    conn.execute("UPDATE meta SET value = 'x1' WHERE key = ?", (key,))
    conn.commit()
    conn.close()
    code, doc, _err = checked(stored)
    assert code == 7 and any(f"the store's {key} ('x1') is no count" in p["found"] for p in doc["check"]["parts"])
    r = run_cli(stored, "search", "module 7", "--no-sync", *(["--mode", "semantic"] if key == "vector_seq" else []))
    assert r.returncode != 0 and f"the store's {key} ('x1') is no count" in r.stderr and "internal" not in r.stderr
    if key == "vector_seq":  # a search that may rank by words does, and says why
        for sync in (["--no-sync"], []):
            r = run_cli(stored, "search", "module 7", "--json", *sync)
            assert r.returncode == 0 and json.loads(r.stdout)["results"], r.stderr
            assert "semantic ranking unavailable (the store's vector_seq ('x1') is no count" in r.stderr
    if key == "lexical_watermark":  # (as its hint says: a new index, and the count with it)
        assert "`backscroll rebuild`" in r.stderr
        assert run_cli(stored, "rebuild").returncode == 0 and checked(stored)[0] == 0


def test_a_check_another_writer_kept_out_of_parts_is_not_called_sound(stored):
    """With the writer lock held (an index, the embedding worker) the lexical index and vectors were skipped, and
    the check said "sound" and exited 0."""
    from backscroll.store.lock import writer_lock

    with writer_lock(stored.config(), 0.0) as held:
        assert held
        code, doc, err = checked(stored)
        human = run_cli(stored, "status", "--check")
    assert code == 5 and doc["check"]["complete"] is False and doc["check"]["sound"] is True, (code, doc["check"])
    assert {p["part"]: p["state"] for p in doc["check"]["parts"]}["vectors"] == "skipped"
    assert error_of(err)["kind"] == "locked" and "could not finish" in error_of(err)["message"]
    assert human.returncode == 5 and "sound" not in human.stdout and "2 could not be checked" in human.stdout
    assert checked(stored)[0] == 0  # (the writer gone: complete, and sound)
