"""Fixtures of the index tests: a store with prose waiting for its vectors."""

from __future__ import annotations

import pytest


@pytest.fixture
def backlog_of(session_builder, backscroll_home, backscroll_index, monkeypatch):
    """``backlog_of(pairs)``: a store with ``2 * pairs`` prose records and no vectors (``index --no-embed``),
    embedded by the fake model."""

    def make(pairs: int):
        monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")
        s = session_builder.claude()
        for i in range(pairs):
            s.user(f"question number {i} about the lighthouse keeper").assistant(f"answer number {i} about the tide")
        backscroll_index(embed=False)
        return backscroll_home

    return make
