"""A no-op ``index`` does not pay a pass over the whole store (issue #35): the integrity check runs when the
store's files are not as a check, or a writer that found them checked, left them."""

import os

import backscroll
from backscroll.store import integrity
from backscroll.store.db import stamp_path, vouched


def test_the_integrity_check_runs_once_then_only_when_something_else_touched_the_store(
        session_builder, backscroll_home, monkeypatch):
    calls = []
    real = integrity.integrity_problems
    def counted(path):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(integrity, "integrity_problems", counted)
    session_builder.claude(project="shop").user("which queue for the jobs?")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    assert len(calls) == 1 and vouched(cfg.db_path)
    backscroll.index(config=cfg, embed=False)
    assert len(calls) == 1, "a no-op index trusts the store it left"
    session_builder.claude(project="shop").user("and the retry policy?")
    backscroll.search("retry policy", config=cfg, mode="lexical", sync=True)  # its sync writes, and vouches
    backscroll.index(config=cfg, embed=False)
    assert len(calls) == 1 and vouched(cfg.db_path)
    os.utime(cfg.db_path)  # another hand touched the file
    backscroll.index(config=cfg, embed=False)
    assert len(calls) == 2, "a store changed behind backscroll's back is checked again"
    assert oct(stamp_path(cfg.db_path).stat().st_mode & 0o777) == "0o600"


def test_a_vouched_no_op_index_does_not_count_the_store_but_a_changed_index_is_checked(
        session_builder, backscroll_home, monkeypatch):
    from backscroll.indexes.lexical import LexicalIndex

    counted = []
    real = LexicalIndex.in_step
    def counting(self, store):
        counted.append(1)
        return real(self, store)

    monkeypatch.setattr(LexicalIndex, "in_step", counting)
    session_builder.claude(project="shop").user("which queue for the jobs?")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    assert counted == [1], "the first index counts"
    backscroll.index(config=cfg, embed=False)
    assert counted == [1], "nothing changed: no count of the whole store"
    current = (cfg.index_dir / "CURRENT").read_text().strip()
    os.utime(cfg.index_dir / current / "meta.json")  # the index touched behind backscroll's back
    backscroll.index(config=cfg, embed=False)
    assert counted == [1, 1]


def test_a_known_file_is_not_claimed_again_but_a_new_or_grown_one_is_read(session_builder, backscroll_home,
                                                                          monkeypatch):
    """A sync asks an agent's ``claims`` only about files the store does not know yet; an append to a known
    file is still read, and a new file still found."""
    from dataclasses import replace

    from backscroll.ingest.sources import AGENTS

    first = session_builder.claude(project="shop").user("which queue for the jobs?")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    asked: list[str] = []
    real = AGENTS["claude"].claims

    def claims(path):
        asked.append(path.name)
        return real(path)

    monkeypatch.setitem(AGENTS, "claude", replace(AGENTS["claude"], claims=claims))
    first.assistant("Postgres with SKIP LOCKED.")
    second = session_builder.claude(project="shop").user("and the retry policy?")
    report = backscroll.index(config=cfg, embed=False).report
    assert report.records_added == 2 and report.files_changed == 2
    assert asked == [second.path.name], asked
