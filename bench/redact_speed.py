#!/usr/bin/env python3
"""Redaction cost at ingest: the real sync over a generated corpus, in-process CPU time, per redactor.

    python bench/redact_speed.py CORPUS_DIR [--variant old=4f463b3] [--variant head=HEAD] [--rounds 5]

``CORPUS_DIR`` comes from ``bench/generate.py``. Each variant is the redactor of a git revision
(``name=REV``: ``backscroll/ingest/redact.py``, or ``backscroll/redact.py`` before 9bc4cea) loaded
from a temporary file; ``none`` (no redaction) and ``work`` (the working tree's module) are always
measured. Rounds alternate between the variants and the best of ``--rounds`` is kept. Two figures
per variant: records/s of a whole sync into a fresh store, and the CPU seconds of the redactor alone
over every text that sync passed to it.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from backscroll.config import Config, Setting, SourceRoot  # noqa: E402
from backscroll.ingest import redact as work_redact  # noqa: E402
from backscroll.ingest.sync import sync  # noqa: E402
from backscroll.store.db import Store  # noqa: E402

# Where the redactor lived: ``backscroll/redact.py`` until 9bc4cea, then ``backscroll/ingest/redact.py``
# (with its rule table in ``redact_rules.py`` once that was split off).
_PATHS = ("backscroll/ingest/redact.py", "backscroll/redact.py")
_RULES_PATH = "backscroll/ingest/redact_rules.py"
_RULES_MODULE = "backscroll.ingest.redact_rules"
_CHECKS_PATH = "backscroll/ingest/redact_checks.py"
_CHECKS_MODULE = "backscroll.ingest.redact_checks"


def _show(rev: str, path: str) -> str | None:
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def _exec(module_name: str, src: str, tmp: Path):
    path = tmp / f"{module_name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _load(name: str, rev: str, tmp: Path):
    """The redactor of revision ``rev``, at whichever path it had; its own rule table when it had one."""
    src = next((s for s in (_show(rev, p) for p in _PATHS) if s is not None), None)
    if src is None:
        raise SystemExit(f"{rev}: no redactor at {' or '.join(_PATHS)}")
    # The engine imports its rules (and, since they were split, their checks) by package name: hand it this
    # revision's while it loads.
    modules = ((_CHECKS_MODULE, _CHECKS_PATH), (_RULES_MODULE, _RULES_PATH))
    own = [(module, _show(rev, path)) for module, path in modules]
    saved = {module: sys.modules.get(module) for module, _src in own}
    try:
        for module, module_src in own:
            if module_src is not None:
                sys.modules[module] = _exec(f"{module.rsplit('.', 1)[1]}_{name}", module_src, tmp)
        return _exec(f"redact_{name}", src, tmp)
    finally:
        for module, was in saved.items():
            if was is None:
                sys.modules.pop(module, None)
            else:
                sys.modules[module] = was


def _config(home: Path, corpus: Path) -> Config:
    roots = (SourceRoot(corpus / "claude" / "projects", "claude", "flag"),
             SourceRoot(corpus / "codex" / "sessions", "codex", "flag"))
    return Config(home=Setting(home, "flag"), config_file=Setting(home / "none.toml", "flag"),
                  embed=Setting(False, "flag"), redact=Setting(True, "flag"), find_roots=lambda: roots)


def _sync_once(corpus: Path, tmp: Path, redactor) -> tuple[float, int]:
    with tempfile.TemporaryDirectory(dir=tmp) as d:
        home = Path(d)
        cfg = _config(home, corpus)
        store = Store.open(cfg.db_path)
        try:
            t0 = time.process_time()
            report = sync(store, cfg.roots, redactor=redactor)
            cpu = time.process_time() - t0
        finally:
            store.close()
    return cpu, report.records_added


class _Recorder:
    def __init__(self):
        self.texts: list[str] = []

    def __call__(self, text: str) -> str:
        self.texts.append(text)
        return text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--variant", action="append", default=[], help="name=git-rev of the redactor")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-sync", action="store_true", help="only the redactor-alone figure")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        modules = {"work": work_redact}
        for spec in args.variant:
            name, _, rev = spec.partition("=")
            modules[name] = _load(name, rev, tmp)
        rec = _Recorder()
        _, records = _sync_once(args.corpus, tmp, rec)
        texts = rec.texts
        print(f"{records} records, {len(texts)} texts passed to the redactor, "
              f"{sum(map(len, texts)) / 1e6:.1f} M chars", file=sys.stderr)
        alone = {n: float("inf") for n in modules}
        full = {n: float("inf") for n in ["none", *modules]}
        outputs = {}
        for _ in range(args.rounds):
            for name, module in modules.items():
                r = module.Redactor()
                t0 = time.process_time()
                out = [r(x) for x in texts]
                alone[name] = min(alone[name], time.process_time() - t0)
                outputs[name] = (out, r.take_counts())
            if args.no_sync:
                continue
            for name in full:
                redactor = None if name == "none" else modules[name].Redactor()
                cpu, n = _sync_once(args.corpus, tmp, redactor)
                assert n == records, (n, records)
                full[name] = min(full[name], cpu)
        for name in modules:
            changed = sum(a != b for a, b in zip(outputs[name][0], texts, strict=False))
            print(f"{name:>6}: redactor alone {alone[name]:.3f} s CPU, {changed} texts changed, "
                  f"counts {sum(outputs[name][1].values())}")
        if not args.no_sync:
            for name, cpu in full.items():
                print(f"{name:>6}: sync {cpu:.2f} s CPU, {records / cpu:,.0f} records/s")
            base = full.get("old")
            if base:
                for name, cpu in full.items():
                    print(f"{name:>6}: {base / cpu:.2f}x old (records/s)")
        if "head" in outputs and outputs["head"][0] != outputs["work"][0]:
            diff = [i for i, (a, b) in enumerate(zip(outputs["head"][0], outputs["work"][0], strict=False)) if a != b]
            print(f"WARNING: work and head differ on {len(diff)} texts, first {diff[:5]}")


if __name__ == "__main__":
    main()
