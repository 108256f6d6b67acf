"""A new lexical index is named (CURRENT) and the store told of it (``lexical_generation``) as one step: a stop that
comes between them waits for both, so the two never name different indexes (which made the next search or `index`
rebuild the whole index from scratch: minutes at millions of records)."""

import signal

import pytest

from backscroll.indexes import lexical
from backscroll.indexes.lexical import CURRENT, LexicalIndex
from backscroll.store.db import Store


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_a_stop_as_the_new_index_is_named_comes_once_the_store_names_it_too(session_builder, backscroll_home,
                                                                            backscroll_index, monkeypatch, stop):
    s = session_builder.claude(project="shop")
    s.user("how do the webhook retries back off?").assistant("exponential backoff with full jitter")
    backscroll_index(embed=False)
    cfg = backscroll_home.config()
    named = LexicalIndex._publish

    def named_then_stopped(self):
        named(self)
        signal.raise_signal(stop)  # (the supervisor's stop, or Ctrl-C, right after the rename)

    def stop_as_ctrl_c(_signum, _frame):  # (what `rebuild` and `index` set for SIGTERM)
        raise KeyboardInterrupt

    monkeypatch.setattr(LexicalIndex, "_publish", named_then_stopped)
    previous = signal.signal(stop, signal.default_int_handler if stop == signal.SIGINT else stop_as_ctrl_c)
    store = Store.open(cfg.db_path)
    try:
        with pytest.raises(KeyboardInterrupt):
            LexicalIndex(cfg.index_dir).rebuild(store)
        assert store.get_meta("lexical_generation") == (cfg.index_dir / CURRENT).read_text().removeprefix(
            lexical.GEN_PREFIX), "the store names the index CURRENT names"
    finally:
        signal.signal(stop, previous)
        store.close()
    gens = [p for p in cfg.index_dir.iterdir() if p.name.startswith(lexical.GEN_PREFIX)]
    said: list[str] = []
    again = LexicalIndex(cfg.index_dir)
    store = Store.open(cfg.db_path)
    try:
        assert again.sync(store, said.append) == 0 and said == [], "nothing to rebuild, nothing to say"
    finally:
        store.close()
    assert len(gens) <= 2 and len([p for p in cfg.index_dir.iterdir() if p.name.startswith(lexical.GEN_PREFIX)]) == 1
