#!/usr/bin/env python3
"""What an upgrade of the redaction rules costs: the pass that redacts every stored record again.

    python bench/redact_again.py DATA_DIR [--rounds 3]

``DATA_DIR`` is an indexed store (``backscroll index --no-embed`` of a ``bench/generate.py`` corpus). Each
round marks every record as redacted by rules older than today's (``records.redaction = 0``, as a store of
an older release is after its migration), then times ``redact_again`` alone, as the first search after the
upgrade runs it, and prints one line of JSON per round: records, records changed, seconds, records/s.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from backscroll.ingest.redact_again import redact_again
from backscroll.store.db import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    for _ in range(args.rounds):
        store = Store.open(args.data_dir / "backscroll.db")
        try:
            store.conn.execute("UPDATE records SET redaction = 0")  # (bench only: as an older release left it)
            store.set_meta("redaction_version", None)
            t0 = time.perf_counter()
            done = redact_again(store)
            seconds = time.perf_counter() - t0
        finally:
            store.close()
        print(json.dumps({"records": done.records, "changed": done.changed, "sessions": done.sessions,
                          "seconds": round(seconds, 2), "records_per_s": round(done.records / seconds)}))


if __name__ == "__main__":
    main()
