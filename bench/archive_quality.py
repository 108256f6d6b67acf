#!/usr/bin/env python3
"""A frozen query set answered by the team archive beside the local store, same queries, same run.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/archive_quality.py CORPUS --home DIR [--modes lexical,semantic,hybrid]
    HF_HUB_OFFLINE=1 .venv/bin/python bench/archive_quality.py --queries fixtures/eval/check.toml --home DIR

``CORPUS`` and ``--home`` are ``bench/agent_search.py``'s (the home keeps the index and the model's vectors);
``--queries`` takes an evaluation file with its own ``[corpus]`` instead (``backscroll eval``'s format).
The home's records, vectors included, are pushed to a throwaway PostgreSQL (pgserver's, with pgvector);
then every frozen query runs twice per mode, locally and with ``archive=``, and the script prints hit@1 by
category for both (of the session for the agent benchmark, whose queries name sessions; of the record for an
evaluation file, whose queries name records): the archive's search must rank as the local one does.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_search import DEFAULT_QUERIES, write_queries  # noqa: E402


class _OnArchive:
    """A handle whose searches go to the archive at ``url``."""

    def __init__(self, bs, url: str):
        self.bs, self.url = bs, url

    def search(self, text: str, **options):
        return self.bs.search(text, archive=self.url, **options)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, nargs="?")
    ap.add_argument("--queries", type=Path, help="an evaluation file with its own [corpus], instead of CORPUS")
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--modes", default="lexical,semantic,hybrid")
    a = ap.parse_args()
    from psycopg import conninfo

    from backscroll.archive import Backscroll
    from backscroll.config import resolve
    from backscroll.eval_file import load_gate, load_queries
    from backscroll.evaluate import _run_mode
    from backscroll.store.archive_pg import Archive

    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        if a.queries is None and a.corpus is None:
            ap.error("give CORPUS or --queries FILE")
        qfile = a.queries or Path(tmp) / "queries.toml"
        if a.queries is None:
            write_queries(DEFAULT_QUERIES, a.corpus.resolve(), None, qfile)
        measure = "hit1" if a.queries else "session_hit1"
        queries, sources = load_queries(qfile)
        _gate, now = load_gate(qfile)
        server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
        try:
            info = conninfo.conninfo_to_dict(server.get_uri())
            with Archive.connect(server.get_uri()) as archive:
                archive.init(["bench"])
            info["user"] = "bench"
            url = conninfo.make_conninfo("", **info)  # type: ignore[arg-type]
            cfg = resolve(home=str(a.home), sources=sources, env={"HOME": str(a.home)})
            with Backscroll(config=cfg) as bs:
                bs.index()
                pushed = bs.push(url)
                print(f"pushed {pushed.pushed} records (pgvector: {pushed.vectors})", file=sys.stderr)
                out = {}
                for mode in a.modes.split(","):
                    m = None if mode == "hybrid" else mode
                    local = _run_mode(bs, queries, 5, m, now, None).table()
                    remote = _run_mode(_OnArchive(bs, url), queries, 5, m, now, None).table()
                    out[mode] = {style: {"local": local[style][measure], "archive": remote[style][measure]}
                                 for style in local}
                    print(mode, json.dumps(out[mode]), file=sys.stderr)
        finally:
            server.cleanup()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
