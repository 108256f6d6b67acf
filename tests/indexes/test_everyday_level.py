"""The everyday level (``indexes.everyday_level``): how close a history comes to everyday coding requests,
measured on the real vector matrix, kept beside it, measured again once the history has grown. The fake
embedder (bag of words): a history that talks like everyday requests sits higher."""

import json

import pytest

from backscroll.indexes import embed
from backscroll.indexes import everyday_level as level_mod
from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store
from backscroll.testing import FakeEmbedder


def test_the_level_is_the_quantile_of_the_closest_cosines():
    closest = [n / 100 for n in range(100)]  # 0.00 .. 0.99
    assert level_mod.quantile(closest, 0.9) == 0.89
    assert level_mod.quantile([0.3], 0.9) == 0.3
    assert len(level_mod.requests()) == 240 and "commit this and push it to my branch" in level_mod.requests()


def measured(home) -> tuple[float | None, dict]:
    cfg = home.config()
    store = Store.open_readonly(cfg.db_path)
    try:
        vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
        found = level_mod.level(vecs, FakeEmbedder, len(vecs.similarities(FakeEmbedder().embed(["x"])[0])[0]))
        kept = json.loads((cfg.vectors_dir / f"everyday-{vecs.model}.json").read_text())
    finally:
        store.close()
    return found, kept


def chat(session_builder, n: int, text: str) -> None:
    s = session_builder.claude(project="shop")
    for i in range(n):
        s.user(f"{text} ({i})")
        s.assistant(f"done: {text} ({i})")


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")


def test_a_history_of_everyday_talk_sits_higher_and_the_level_is_kept_until_it_grows(
        fake, session_builder, backscroll_home, backscroll_index):
    chat(session_builder, 10, "the invoice reconciliation deadlock in the ledger service")
    backscroll_index()
    quiet, kept = measured(backscroll_home)
    assert kept == {"records": 20, "level": quiet}
    chat(session_builder, 1, "commit this and push it to my branch, then run the tests")  # +2 records: < 10%
    backscroll_index()
    assert measured(backscroll_home)[0] == quiet, "kept while the history is about the size it was measured at"
    chat(session_builder, 10, "commit this and push it to my branch, then run the tests")
    backscroll_index()
    louder, kept = measured(backscroll_home)
    assert kept["records"] == 42 and quiet is not None and louder is not None and louder > quiet


def test_no_vectors_no_level(fake, session_builder, backscroll_home, backscroll_index):
    session_builder.claude().tool("pytest -q", "4 passed")  # a tool output only: nothing embedded
    backscroll_index()
    cfg = backscroll_home.config()
    store = Store.open_readonly(cfg.db_path)
    try:
        assert level_mod.level(Vectors(store, cfg.vectors_dir, embed.model_id()), FakeEmbedder, 0) is None
    finally:
        store.close()
