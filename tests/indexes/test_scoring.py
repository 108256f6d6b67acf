"""The int8 matrix's scores are the same on every machine: they do not depend on how many threads BLAS runs."""

import os
import subprocess
import sys

import numpy as np
import pytest

_SCORE = r"""
import sys, numpy as np
from backscroll.indexes.nearest import score_int8
rng = np.random.default_rng(5)
m8 = rng.integers(-127, 128, size=(22_754, 384), dtype=np.int8)
scales = rng.random(22_754, dtype=np.float32)
queries = rng.standard_normal((4, 384)).astype(np.float32)
np.save(sys.argv[1], np.stack([score_int8(m8, scales, q / np.linalg.norm(q)) for q in queries]))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="BLAS runs one thread on one core: nothing to compare")
def test_scores_do_not_depend_on_the_threads_blas_runs(tmp_path):
    """With 16,384 rows scored at a time, BLAS split each block among its threads, and where a split fell off its
    alignment (a last block of odd length: 22,754 rows, as the agent corpus has) a row's score differed in its last
    bit from one machine to another (68 of 1.1 million on that corpus's vectors, 50 queries). (OpenBLAS runs no more
    threads than the machine has cores: on two, 8 asked is 2 again.)"""
    scores = []
    for threads in (1, 2, 8):
        out = tmp_path / f"{threads}.npy"
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
        subprocess.run([sys.executable, "-c", _SCORE, str(out)], env=env, check=True, timeout=120)
        scores.append(np.load(out))
    assert all(np.array_equal(scores[0], other) for other in scores[1:])
