"""Shared settings. The fixtures themselves come from backscroll's pytest plugin (backscroll.testing).

Unit tests use the deterministic fake embedder; the tests that need the real model say so.
"""

import os

os.environ.setdefault("BACKSCROLL_TEST_EMBEDDER", "fake")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
