"""A search whose call is cancelled stops between its stages: here the cancel comes while the query is embedded (the
meaning list), and the search stops there, before its words are searched; the next search answers as if none had
been."""

import threading

import pytest

from backscroll.archive import Backscroll
from backscroll.indexes.embedders import register_embedder, unregister_embedder
from backscroll.interrupts import Cancelled, cancellable
from backscroll.testing.fake import FakeEmbedder


def test_a_search_cancelled_while_its_query_is_embedded_stops_and_leaves_the_next_answer_alone(
        session_builder, backscroll_home, backscroll_index, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")
    s = session_builder.claude(project="hooks")
    s.user("how should webhook retries back off?")
    s.assistant("exponential backoff with full jitter, capped at ten minutes")
    s.user("and the job queue?").assistant("a queue table polled with SKIP LOCKED")
    backscroll_index()
    cancel = threading.Event()

    class CancelledAsTheQueryIsEmbedded(FakeEmbedder):  # (the same vectors: the model the store was embedded with)
        def embed(self, texts):
            cancel.set()
            return super().embed(texts)

    register_embedder("cancelling", lambda _variant: CancelledAsTheQueryIsEmbedded())
    try:
        with Backscroll(config=backscroll_home.config()) as bs:
            before = bs.search("webhook retries backoff", mode="hybrid").to_dict()
            monkeypatch.setenv("BACKSCROLL_EMBEDDER", "cancelling")
            with pytest.raises(Cancelled), cancellable(cancel):  # (a query not embedded before: no vector kept)
                bs.search("webhook retries with jitter", mode="hybrid")
            after = bs.search("webhook retries backoff", mode="hybrid").to_dict()
    finally:
        unregister_embedder("cancelling")
    assert after == before and before["results"]
