#!/usr/bin/env python3
"""A seeded, deterministic corpus of coding-agent session logs, for benchmarks.

    python bench/generate.py OUT_DIR --sessions 2000 [--seed 0] [--codex-share 0.3] [--force]

writes ``--sessions`` sessions, ordered in time over one year (2025-12-01 .. 2026-11-30), in the
agents' real on-disk layouts:

    OUT_DIR/claude/projects/<slug>/<uuid>.jsonl                      (Claude Code, ~70%)
    OUT_DIR/claude/projects/<slug>/<uuid>/subagents/agent-<16hex>.jsonl  (~5% of Claude sessions)
    OUT_DIR/codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<uuid>.jsonl  (Codex CLI, ~30%)

and prints one line of JSON: ``{"sessions", "files", "lines", "bytes", "expected_records", "seconds"}``.

``expected_records`` is exactly what ``backscroll index`` should add from a fresh store: for Claude
each user text message, assistant text block, ``tool_use`` and non-empty ``tool_result``; for Codex
each ``response_item`` user/assistant message (not the injected context), each ``function_call`` /
``custom_tool_call`` and each non-empty call output. ``event_msg`` duplicates, thinking, reasoning,
snapshots, summaries, meta and slash-command lines are written too (they are in real logs) but are
not records.

The line shapes follow ``backscroll/testing.py`` (``ClaudeSession`` / ``CodexSession``) and the
hand-written fixtures. Sessions have ~100 records on average with a long tail (lognormal: many
short sessions, a few with 400+ records); ~15% user prose, ~25% assistant prose, ~60% tool calls
and results; tool outputs are mostly 1-40 lines, ~5% are 200-2000 lines of logs, test output or
file content; ~2% of tool calls are ``backscroll search ...`` query echoes whose output repeats
earlier assistant prose. Words follow Zipf-like frequencies over a few hundred software-engineering
words, per-project identifiers and file paths, error messages and numbers.

Each file's mtime is when its session ended, as an agent's last write leaves it.

Deterministic: the same arguments give byte-identical files (only ``random.Random`` instances are
used, uuids are drawn from them). ``append_lines(path, k, seed)`` appends ``k`` one-record lines to
an existing Claude session file (the "append to a live session" benchmark).
"""

from __future__ import annotations

import argparse
import base64
import bisect
import itertools
import json
import math
import os
import re
import shlex
import shutil
import sys
import time
import uuid as uuidlib
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from random import Random
from typing import Any

# --------------------------------------------------------------------------------------------
# JSON and small helpers
# --------------------------------------------------------------------------------------------

_ENC = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
dumps = _ENC.encode

YEAR_START = datetime(2025, 12, 1, tzinfo=UTC)
YEAR_DAYS = 365
_EPOCH = datetime(1970, 1, 1)
_DAY_CACHE: dict[int, str] = {}
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def fmt_ts(ms: int) -> str:
    """Epoch milliseconds -> ``2026-03-02T10:15:00.123Z``."""
    day, rem = divmod(ms, 86_400_000)
    d = _DAY_CACHE.get(day)
    if d is None:
        d = _DAY_CACHE[day] = (_EPOCH + timedelta(days=day)).strftime("%Y-%m-%d")
    sec, msec = divmod(rem, 1000)
    h, sec = divmod(sec, 3600)
    m, sec = divmod(sec, 60)
    return f"{d}T{h:02d}:{m:02d}:{sec:02d}.{msec:03d}Z"


def parse_ms(ts: str) -> int:
    dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return int(round(dt.timestamp() * 1000))


def uuid4(rng: Random) -> str:
    return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))


def uuid7(rng: Random, ms: int) -> str:
    value = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62) | rng.getrandbits(62)
    return str(uuidlib.UUID(int=value))


def b62(rng: Random, n: int) -> str:
    return "".join(rng.choices(_B62, k=n))


def b64(rng: Random, n: int, urlsafe: bool = False) -> str:
    raw = rng.randbytes(n)
    return (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()


def hexid(rng: Random, n: int) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"


def zipf_cum(n: int, s: float = 1.05, q: float = 2.7) -> list[float]:
    """Cumulative Zipf-Mandelbrot weights for ranks 0..n-1."""
    return list(itertools.accumulate(1.0 / (r + q) ** s for r in range(n)))


# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

FUNCTION_WORDS = """the to a and of in is it that for this we on with be not so now as are but from at
by an or if then when which should can will was there all one only still also instead because after
before into out up no its our has have just more new each same first both any other here""".split()

NOUNS = """test tests error function config database query cache request response handler migration
schema index token session timeout retry worker queue job deploy build commit branch module import
parser logger endpoint service client server connection pool transaction lock thread process memory
file path directory fixture mock assertion exception traceback stack field column table row key value
type class method argument parameter variable string list dict array object struct interface payload
header status code event message callback hook middleware router route view template component state
store reducer action render bundle dependency package version release tag pipeline container image
cluster pod node volume secret flag option setting permission user account order payment invoice cart
product customer email notification webhook scheduler cron batch stream buffer offset cursor page limit
filter search result record line byte chunk log metric trace span latency throughput benchmark profile
regression bug fix patch diff review coverage lint serializer model validator encoder decoder tokenizer
embedding vector snapshot checkpoint backup replica shard partition leader heartbeat lease deadline
backoff idempotency invariant workspace runtime compiler binary artifact manifest lockfile registry
proxy gateway certificate socket port host timestamp timezone locale encoding""".split()

VERBS = """add remove update fix change move rename refactor check run call return raise catch handle
parse load save write read fetch send retry skip ignore log import export build deploy install upgrade
pin revert merge rebase split join cache invalidate flush close open lock release wrap mock patch stub
assert validate normalize serialize encode decode compute sort filter index query migrate bump
profile inline extract reuse""".split()

VERBS_PAST = """added removed updated fixed changed moved renamed refactored checked ran called returned
raised caught handled parsed loaded saved wrote fetched sent retried skipped ignored logged imported
built deployed installed upgraded pinned reverted merged rebased split cached invalidated flushed closed
opened locked released wrapped mocked patched validated normalized serialized encoded decoded computed
sorted filtered indexed migrated bumped extracted""".split()

ADJECTIVES = """failing flaky slow fast missing broken stale empty invalid duplicate unused old async
sync nullable optional default explicit implicit idle concurrent atomic transient deterministic
incremental unique cached lazy eager nested legacy deprecated global local private public internal
external upstream downstream noisy safe""".split()

GENERIC_IDENTS = """user_id order_id created_at updated_at is_active max_retries batch_size timeout_ms
request_id session_id api_key base_url db_url page_size retry_count dry_run verbose __init__ self
None True False null undefined async await kwargs args config.yaml pyproject.toml package.json
Dockerfile Makefile README.md .env settings.py conftest.py setup.cfg tsconfig.json go.mod Cargo.toml
localhost:8000 127.0.0.1 HTTP GET POST PUT DELETE JSON YAML SQL CI PR main""".split()

NUMBERS = """0 1 2 3 4 5 8 10 12 16 20 30 32 42 50 64 100 128 200 250 256 404 500 502 503 1000 1024
2048 3000 4096 5432 6379 8000 8080 9000 65536 0.5 1.5 2.0 3.12 99.9""".split()

ERRORS = [
    "KeyError: 'user_id'",
    "TypeError: 'NoneType' object is not subscriptable",
    "AttributeError: 'dict' object has no attribute 'items_list'",
    "ModuleNotFoundError: No module named 'requests'",
    "ConnectionRefusedError: [Errno 111] Connection refused",
    'psycopg.errors.UniqueViolation: duplicate key value violates unique constraint "orders_pkey"',
    "sqlite3.OperationalError: database is locked",
    "TimeoutError: timed out after 30s",
    "AssertionError: assert 3 == 4",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "FileNotFoundError: [Errno 2] No such file or directory: 'config.yaml'",
    "PermissionError: [Errno 13] Permission denied: '/var/run/app.sock'",
    "RecursionError: maximum recursion depth exceeded",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
    "TypeError: Cannot read properties of undefined (reading 'map')",
    "ReferenceError: process is not defined",
    "error[E0502]: cannot borrow `self` as mutable because it is also borrowed as immutable",
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "fatal: not a git repository (or any of the parent directories): .git",
    "npm ERR! code ERESOLVE",
    "Error: listen EADDRINUSE: address already in use :::3000",
    'django.db.utils.ProgrammingError: relation "orders_order" does not exist',
    "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.",
    "requests.exceptions.HTTPError: 502 Server Error: Bad Gateway",
    "HTTP 429 Too Many Requests",
    "ssl.SSLCertVerificationError: certificate verify failed: unable to get local issuer certificate",
    "Segmentation fault (core dumped)",
    'error: Incompatible return value type (got "str | None", expected "str")',
    "E501 Line too long (112 > 100)",
    "FATAL:  sorry, too many clients already",
    "ERROR:  deadlock detected",
    "context deadline exceeded",
    "ENOSPC: no space left on device",
    "torch.cuda.OutOfMemoryError: CUDA out of memory",
    "SyntaxError: unexpected EOF while parsing",
    "ImportError: cannot import name 'Settings' from partially initialized module 'app.config'",
    "ERROR: Could not find a version that satisfies the requirement numpy==3.0",
    "Back-off restarting failed container (CrashLoopBackOff)",
    "OOMKilled: container exceeded memory limit 512Mi",
    "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value'",
    "TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.",
]

PROJECTS = [
    ("shop", "python"), ("payments", "python"), ("infra", "infra"), ("api-gateway", "go"),
    ("dashboard", "ts"), ("mobile-app", "ts"), ("data-pipeline", "python"), ("ml-training", "python"),
    ("auth-service", "go"), ("notifications", "python"), ("search-service", "rust"), ("billing", "python"),
    ("inventory", "python"), ("analytics", "python"), ("cli-tools", "rust"), ("docs-site", "ts"),
    ("chat-bot", "python"), ("scheduler", "go"), ("image-resizer", "rust"), ("etl-jobs", "python"),
    ("blog", "ts"), ("monorepo", "ts"), ("terraform-aws", "infra"), ("k8s-manifests", "infra"),
    ("rust-parser", "rust"), ("go-proxy", "go"), ("design-system", "ts"), ("feature-flags", "go"),
    ("log-shipper", "rust"), ("recommender", "python"),
]

EXT = {"python": "py", "ts": "ts", "go": "go", "rust": "rs", "infra": "tf"}
CLASS_SUFFIX = ("Service Manager Handler Serializer Client Error Config Factory Repository Controller View Model Store "
                "Worker Queue Cache Parser Builder Registry Policy").split()
SUMMARY_TEMPLATES = [
    "Fix {adj} {noun} in {Cls}", "Add {noun} {noun} to {fn}", "Debug {err_short}", "Refactor {noun} handling",
    "Speed up {noun} {noun}", "Migrate {noun} to {noun}", "Investigate {adj} {noun} tests", "Review {path}",
]

# --------------------------------------------------------------------------------------------
# Templates: ``{slot}`` is filled by Text.slots[slot]
# --------------------------------------------------------------------------------------------

_SLOT = re.compile(r"\{(\w+)\}")


class Tpl:
    __slots__ = ("parts",)

    def __init__(self, s: str):
        self.parts = _SLOT.split(s)


def T(*items: str) -> list[Tpl]:
    return [Tpl(s) for s in items]


ASSISTANT_SENTENCES = T(
    "I'll {verb} the {noun} in `{path}` first.",
    "The {adj} {noun} comes from `{fn}`: it {verbs} the {noun} before the {noun} is {ved}.",
    "Found it: `{Cls}.{fn}` {ved} the {noun} without a {noun}.",
    "All {num} tests pass now.",
    "`{err}` is raised because the {noun} is {adj} when {fn} runs.",
    "Next I'll {verb} `{fn}` and rerun `{cmd}`.",
    "The fix is to {verb} the {noun} inside `{fn}` so the {noun} stays {adj}.",
    "I {ved} `{path}` to {verb} the {noun} once per {noun}.",
    "That matches the traceback: `{fn}` is called with a {adj} {noun}.",
    "`{Cls}` already has a {noun} {noun}, so we can {verb} it instead of adding a new one.",
    "Let me check how `{fn}` is used before I change its signature.",
    "There are {num} call sites of `{fn}`; only `{path}` passes a {noun}.",
    "We should {verb} the {noun} {noun} behind a flag until the {noun} is {ved}.",
    "The {noun} {noun} dropped from {num} ms to {num} ms after the change.",
    "I {ved} a regression test in `{test}` that fails without the fix.",
    "This is a {adj} {noun}: it only shows up when two {noun}s {verb} the same {noun}.",
    "Done. `{cmd}` is green and the diff touches {num} files.",
    "The {noun} was {adj} because `{fn}` never {ved} the {noun}.",
)

USER_SENTENCES = T(
    "`{cmd}` fails with {err} - can you fix it?",
    "Can you add {adj} {noun} support to `{fn}` in {path}?",
    "why is the {noun} so slow in {path}",
    "The {noun} test in {test} is {adj} again, please look into it.",
    "Let's refactor {Cls} so the {noun} {noun} logic lives in one place.",
    "ok, go ahead and {verb} it",
    "Please {verb} the {noun} in `{fn}` and keep the {noun} {adj}.",
    "I'm seeing `{err}` in production after the last deploy.",
    "what does {fn} do with the {noun} when it is {adj}?",
    "Run the tests again and commit if they pass.",
    "Can we {verb} the {noun} instead of the {noun}? The {noun} is {adj}.",
    "looks good. now {verb} the {adj} {noun} in {path}",
)

THINKING_SENTENCES = T(
    "The user wants me to {verb} the {noun} in {path}.",
    "I should look at `{fn}` and how the {noun} flows into `{Cls}`.",
    "Maybe the {adj} {noun} is the cause; let me check the {noun} first.",
    "The error `{err}` suggests the {noun} is {adj}.",
    "Plan: read {path}, then {verb} the {noun}, then run `{cmd}`.",
)

SUBAGENT_PROMPTS = T(
    "Find every place in {cwd} that {verbs} the {noun} and report the file and function names. "
    "Do not change any files.",
    "Profile `{fn}` in {cwd}: it is {adj} since the last refactor. Report the root cause with file and line.",
    "Review the diff on this branch for {adj} {noun} handling and list concrete problems.",
)

CODE_TPL = {
    "python": (
        T("def {fn}({var}, {var2}=None):", "class {Cls}({Cls2}):", "async def {fn}(self, {var}):",
          "@pytest.fixture", "import {mod}", "from {mod} import {Cls}", "@dataclass(frozen=True)"),
        T("    {var} = {fn}({var2})", "    if not {var}:", "        return None", "    for {var} in {var2}:",
          "        {var}.{fn}({var2})", '    logger.info("{w} {w} %s", {var})', "    # {sentence}", "    return {var}",
          '    raise {Cls}Error("{w} {w}")', "    with {fn}() as {var}:", "    assert {var} == {num}",
          "        self.{var} = {var}", '    {var} = {"{w}": {var2}, "{var}": {num}}', "    try:",
          "    except {Cls}Error as exc:", "        logger.exception(\"{w} failed\")", "    {var}: {Cls} | None = None",
          '    """{sentence}"""', "        await self.{fn}({var})", "    {var} += {num}"),
    ),
    "ts": (
        T("export function {fnc}({var}: {Cls}): {Cls2} {", "export const {Cls} = ({ {var} }: Props) => {",
          "import { {Cls} } from './{w}';", "export async function {fnc}({var}: string) {", "interface {Cls}Props {"),
        T("  const {var} = await {fnc}({var2});", "  if (!{var}) return null;", "  return {var};", "}",
          "  {var}.{fnc}({var2});", "  // {sentence}", '  <div className="{w}-{w}">{{var}}</div>',
          "  {var}: {Cls2};", "  useEffect(() => {", "  }, [{var}]);", "  throw new Error('{w} {w}');",
          "  const [{var}, set{Cls}] = useState<{Cls2} | null>(null);", "  expect({var}).toEqual({num});"),
    ),
    "go": (
        T("func (s *{Cls}) {Fn}(ctx context.Context, {var} string) error {", "func {Fn}({var} int) ({Cls}, error) {",
          "type {Cls} struct {", "package {w}", "func Test{Fn}(t *testing.T) {"),
        T("\t{var}, err := s.{fnc}(ctx, {var2})", "\tif err != nil {", '\t\treturn fmt.Errorf("{w} {w}: %w", err)',
          "\t}", "\treturn nil", "}", "\t// {sentence}", "\t{Fn} {Cls2} `json:\"{var}\"`", "\tdefer {var}.Close()",
          '\tlog.Printf("{w} %s", {var})', '\t\tt.Fatalf("got %v, want %v", {var}, {num})',
          "\tfor _, {var} := range {var2} {"),
    ),
    "rust": (
        T("pub fn {fn}(&self, {var}: &{Cls}) -> Result<{Cls2}, Error> {", "impl {Cls} {", "pub struct {Cls} {",
          "#[test]", "fn {fn}() {", "use crate::{w}::{Cls};"),
        T("    let {var} = self.{fn}({var2})?;", "    match {var} {", "        Some(x) => x,",
          "        None => return Ok(None),",
          "    Ok({var})", "}", "    // {sentence}", "    pub {var}: {Cls2},", "    assert_eq!({var}, {num});",
          '    tracing::info!("{w} {w} {}", {var});', "    for {var} in {var2}.iter() {"),
    ),
    "infra": (
        T('resource "aws_{w}" "{var}" {', "  - name: {w}-{w}", 'module "{w}" {', "apiVersion: apps/v1", "- hosts: {w}"),
        T('  {var} = "{w}"', "  {var} = {num}", "    image: {w}:{num}.{num}", "  # {sentence}", "}",
          "    replicas: {num}",
          "      {var}: {w}", '  tags = { Name = "{w}-{w}" }', "    memory: {num}Mi", "  when: {var} is defined"),
    ),
}

COMMANDS = {
    "python": [
        ("pytest -q", "test"), ("pytest {test} -x -q", "test"), ("python -m pytest {test}::test_{fn} -vv", "test"),
        ("ruff check {dir}", "lint"), ("mypy {dir}", "lint"), ("python manage.py migrate", "log"),
        ("uv run python -c 'import {mod}; print({mod}.__version__)'", "short"), ("pip install -e '.[test]'", "build"),
        ("make test", "test"), ("python -m {mod} --help", "code"),
    ],
    "ts": [
        ("npm test", "test"), ("npx vitest run {test}", "test"), ("npx tsc --noEmit", "lint"), ("npm run lint", "lint"),
        ("npm run build", "build"), ("pnpm install", "build"), ("npx playwright test {test}", "test"),
    ],
    "go": [
        ("go test ./...", "test"), ("go test ./{dir}/... -run Test{Fn} -v", "test"), ("go build ./...", "build"),
        ("go vet ./...", "lint"), ("golangci-lint run", "lint"), ("go mod tidy", "empty"),
    ],
    "rust": [
        ("cargo test", "test"), ("cargo test {fn} -- --nocapture", "test"), ("cargo build --release", "build"),
        ("cargo clippy -- -D warnings", "lint"), ("cargo fmt --check", "empty"),
    ],
    "infra": [
        ("terraform plan -out=tfplan", "log"), ("terraform validate", "short"), ("kubectl get pods -n {w}", "ls"),
        ("kubectl logs deploy/{w} --tail=200", "log"), ("helm upgrade --install {w} ./charts/{w} --dry-run", "log"),
        ("ansible-playbook -i inventories/staging site.yml --check", "log"), ("tflint", "lint"),
    ],
    "common": [
        ("git status --short", "gitstatus"), ("git diff --stat", "gitstat"), ("git log --oneline -n 15", "gitlog"),
        ('rg -n "{fn}" {dir}', "grep"), ('grep -rn "{Cls}" {dir}', "grep"), ("cat {path}", "code"),
        ("sed -n '{a},{b}p' {path}", "code"), ("ls -la {dir}", "ls"), ("docker compose logs --tail=200 {w}", "log"),
        ('git add -A && git commit -m "{commitmsg}"', "commit"), ("mkdir -p {dir}/{w}", "empty"),
        ("git checkout -b fix/{w}-{w}", "short"), ("wc -l {path}", "short"), ("git stash", "short"),
        ("curl -s localhost:8000/api/{w}/ | jq .", "json"), ("touch {dir}/__init__.py", "empty"),
    ],
}

ECHO_FORMS = [
    "backscroll search {qw}", "backscroll search {qq}", 'backscroll search "{q}" --limit 5',
    "backscroll search {qq} --json | jq '.results[].snippet'", "cd {cwd} && backscroll search {qq} --project {proj}",
    "uvx backscroll search {qq}", "BACKSCROLL_HOME=~/.local/share/backscroll backscroll search {qq} --since 30d",
    "backscroll search {qq} --role assistant 2>/dev/null | head -40", "backscroll search --json {qq}",
]

_FUNCTION_SET = frozenset(FUNCTION_WORDS)
LONG_KINDS = {"test", "log", "code", "grep", "build", "json"}
LONG_SHARE = 0.09  # of long-capable outputs; ~5% of all tool results end up 200-2000 lines


# --------------------------------------------------------------------------------------------
# Text: prose, identifiers and tool outputs, drawn from a per-corpus Random
# --------------------------------------------------------------------------------------------

class Project:
    """Per-project identifiers, files and commands; fixed by the project name (not the seed)."""

    def __init__(self, name: str, lang: str):
        r = Random(f"project:{name}")
        self.name, self.lang = name, lang
        self.cwd = f"/home/dev/{name}"
        self.slug = re.sub(r"[^A-Za-z0-9]", "-", self.cwd)
        ext = EXT[lang]
        base = name.replace("-", "_")
        top = {"python": [f"src/{base}", "tests", "scripts"], "ts": ["src/components", "src/lib", "src/pages", "tests"],
               "go": ["internal/" + base, "cmd/" + base, "pkg/api"], "rust": ["src", "src/bin", "tests"],
               "infra": ["modules/network", "modules/db", "envs/staging", "envs/prod"]}[lang]
        self.dirs = top
        fns = sorted({f"{r.choice(VERBS)}_{r.choice(NOUNS)}" + (f"_{r.choice(NOUNS)}" if r.random() < 0.3 else "")
                      for _ in range(70)})
        r.shuffle(fns)
        self.fns = fns
        self.fncs = [re.sub(r"_(\w)", lambda m: m.group(1).upper(), f) for f in fns]
        classes = sorted({r.choice(NOUNS).capitalize() + r.choice(NOUNS).capitalize() + r.choice(CLASS_SUFFIX)
                          for _ in range(35)})
        r.shuffle(classes)
        self.classes = classes
        files = sorted({f"{r.choice(top)}/{r.choice(NOUNS)}{'_' + r.choice(NOUNS) if r.random() < 0.4 else ''}.{ext}"
                        for _ in range(45)})
        r.shuffle(files)
        self.files = files
        tdir = "tests" if lang in ("python", "ts", "rust") else top[0]
        tests = sorted({(f"{tdir}/test_{r.choice(NOUNS)}.py" if lang == "python" else
                         f"{tdir}/{r.choice(NOUNS)}.test.ts" if lang == "ts" else
                         f"{tdir}/{r.choice(NOUNS)}_test.go" if lang == "go" else
                         f"{tdir}/{r.choice(NOUNS)}.rs" if lang == "rust" else f"{tdir}/{r.choice(NOUNS)}_test.tf")
                        for _ in range(18)})
        r.shuffle(tests)
        self.tests = tests
        self.mods = [base] + [f"{base}.{r.choice(NOUNS)}" for _ in range(8)]
        self.vars = sorted({r.choice(NOUNS) + (f"_{r.choice(NOUNS)}" if r.random() < 0.5 else "") for _ in range(40)})
        self.commands = [(Tpl(c), k) for c, k in COMMANDS[lang] + COMMANDS["common"]]
        self.cmd_cum = zipf_cum(len(self.commands), 0.8, 3.0)
        self.fn_cum = zipf_cum(len(self.fns), 1.0, 2.0)
        self.cls_cum = zipf_cum(len(self.classes), 1.0, 2.0)
        self.file_cum = zipf_cum(len(self.files), 1.0, 2.0)
        self.branches = ["main"] * 4 + [f"{r.choice(['fix', 'feat', 'chore'])}/{r.choice(NOUNS)}-{r.choice(NOUNS)}"
                                        for _ in range(4)]


class Text:
    """Generates prose, commands and outputs. Vocabulary and pools are fixed; sampling uses ``rng``."""

    def __init__(self, rng: Random):
        self.rng = rng
        base = _base()
        self.words, self.word_cum = base["words"], base["word_cum"]
        self.pools = base["pools"]
        self.projects = base["projects"]
        self.p: Project = self.projects[0]
        self.slots = {
            "w": self.word, "noun": self.noun, "verb": self.verb, "verbs": self.verbs, "ved": self.ved,
            "adj": self.adj, "num": self.num, "err": self.err, "err_short": self.err_short, "fn": self.fn,
            "fnc": self.fnc, "Fn": self.Fn, "Cls": self.cls, "Cls2": self.cls, "path": self.path, "test": self.test,
            "dir": self.dir, "mod": self.mod, "var": self.var, "var2": self.var, "cmd": self.cmd_text,
            "cwd": lambda: self.p.cwd, "proj": lambda: self.p.name, "a": lambda: str(self.rng.randint(1, 200)),
            "b": lambda: str(self.rng.randint(201, 420)), "commitmsg": self.commit_msg, "sentence": self.zipf_sentence,
        }

    # slots -----------------------------------------------------------------------------
    def word(self):
        return self.rng.choices(self.words, cum_weights=self.word_cum)[0]

    def noun(self):
        return NOUNS[min(int(self.rng.paretovariate(0.9)) - 1, len(NOUNS) - 1) if self.rng.random() < 0.6
                     else self.rng.randrange(len(NOUNS))]

    def verb(self):
        return self.rng.choice(VERBS)

    def verbs(self):
        v = self.rng.choice(VERBS)
        return v + ("es" if v.endswith(("h", "s", "x")) else "s")

    def ved(self):
        return self.rng.choice(VERBS_PAST)

    def adj(self):
        return self.rng.choice(ADJECTIVES)

    def num(self):
        r = self.rng.random()
        if r < 0.5:
            return str(self.rng.randint(2, 60))
        if r < 0.8:
            return str(self.rng.randint(60, 2000))
        return self.rng.choice(NUMBERS)

    def err(self):
        return ERRORS[min(int(self.rng.paretovariate(0.7)) - 1, len(ERRORS) - 1)]

    def err_short(self):
        return self.err().split(":")[0]

    def fn(self):
        return self.rng.choices(self.p.fns, cum_weights=self.p.fn_cum)[0]

    def fnc(self):
        return self.rng.choices(self.p.fncs, cum_weights=self.p.fn_cum)[0]

    def Fn(self):
        f = self.fnc()
        return f[0].upper() + f[1:]

    def cls(self):
        return self.rng.choices(self.p.classes, cum_weights=self.p.cls_cum)[0]

    def path(self):
        return self.rng.choices(self.p.files, cum_weights=self.p.file_cum)[0]

    def test(self):
        return self.rng.choice(self.p.tests)

    def dir(self):
        return self.rng.choice(self.p.dirs)

    def mod(self):
        return self.rng.choice(self.p.mods)

    def var(self):
        return self.rng.choice(self.p.vars)

    def cmd_text(self):
        return self.command()[0]

    def commit_msg(self):
        return (f"{self.rng.choice(['fix', 'feat', 'refactor', 'test', 'chore'])}: "
                f"{self.verb()} {self.adj()} {self.noun()} in {self.fn()}")

    # prose -----------------------------------------------------------------------------
    def fill(self, tpl: Tpl) -> str:
        parts = tpl.parts[:]
        slots = self.slots
        for i in range(1, len(parts), 2):
            parts[i] = slots[parts[i]]()
        return "".join(parts)

    def zipf_sentence(self, lo: int = 6, hi: int = 18) -> str:
        words = self.rng.choices(self.words, cum_weights=self.word_cum, k=self.rng.randint(lo, hi))
        s = " ".join(words)
        return s[0].upper() + s[1:] + "."

    def sentence(self, templates: list[Tpl], p_tpl: float = 0.65) -> str:
        if self.rng.random() < p_tpl:
            return self.fill(self.rng.choice(templates))
        return self.zipf_sentence()

    def sentences(self, templates, n: int) -> str:
        return " ".join(self.sentence(templates) for _ in range(n))

    def user_text(self) -> str:
        r = self.rng.random()
        if r < 0.12:
            return self.rng.choice(["yes", "ok, go ahead", "continue", "run the tests again", "commit it",
                                    "looks good", "try again", "no, revert that", "ship it", "why?"])
        text = self.sentences(USER_SENTENCES, self.rng.choice((1, 1, 1, 2, 2, 3)))
        if r > 0.95:  # a pasted traceback
            trace = self.rng.choices(self.pools["test_fail"], k=self.rng.randint(4, 14))
            text += "\n\n```\n" + "\n".join(trace) + "\n```"
        return text

    def assistant_text(self) -> str:
        rng = self.rng
        if rng.random() < 0.1:
            return self.long_answer()
        return self.sentences(ASSISTANT_SENTENCES, rng.randint(1, 6))

    def long_answer(self) -> str:
        rng = self.rng
        paras = []
        for _ in range(rng.randint(2, 5)):
            r = rng.random()
            if r < 0.35:
                paras.append(self.code_fence(rng.randint(3, 25)))
            elif r < 0.55:
                paras.append("\n".join(f"- `{self.fn()}`: {self.sentence(ASSISTANT_SENTENCES)}"
                                       for _ in range(rng.randint(2, 6))))
            else:
                paras.append(self.sentences(ASSISTANT_SENTENCES, rng.randint(2, 6)))
        if rng.random() < 0.5:
            paras.insert(0, f"## {self.verb().capitalize()} the {self.noun()} {self.noun()}")
        return "\n\n".join(paras)

    def code_fence(self, n: int) -> str:
        lang = {"python": "python", "ts": "ts", "go": "go", "rust": "rust", "infra": "hcl"}[self.p.lang]
        return f"```{lang}\n" + "\n".join(self.code_lines(n)) + "\n```"

    def thinking(self) -> str:
        return self.sentences(THINKING_SENTENCES, self.rng.randint(1, 4))

    def title(self) -> str:
        return self.fill(self.rng.choice(_SUMMARY_TPL))

    # outputs ---------------------------------------------------------------------------
    def code_lines(self, n: int) -> list[str]:
        return self.rng.choices(self.pools["code:" + self.p.lang], k=n)

    def n_lines(self, kind: str) -> int:
        rng = self.rng
        if kind in LONG_KINDS and rng.random() < LONG_SHARE:
            return int(math.exp(rng.uniform(5.3, 7.6)))  # 200 .. 2000 lines, log-uniform
        return min(40, 1 + int(rng.expovariate(1 / 8)))

    def command(self) -> tuple[str, str]:
        p = self.p
        tpl, kind = self.rng.choices(p.commands, cum_weights=p.cmd_cum)[0]
        return self.fill(tpl), kind

    def output(self, kind: str, n: int | None = None, failed: bool = False) -> str:
        rng, pools = self.rng, self.pools
        if kind == "empty":
            return ""
        if n is None:
            n = self.n_lines(kind)
        if kind == "test":
            return self.test_output(n, failed)
        if kind == "code":
            return "\n".join(self.code_lines(n))
        if kind == "grep":
            fs, code = self.p.files, pools["code:" + self.p.lang]
            return "\n".join(f"{rng.choice(fs)}:{rng.randint(1, 900)}:{rng.choice(code).strip()}" for _ in range(n))
        if kind == "log":
            return "\n".join(rng.choices(pools["log"], k=n))
        if kind == "build":
            return "\n".join(rng.choices(pools["build"], k=n)) + ("\n" + self.err() if failed else "")
        if kind == "lint":
            fs = self.p.files
            if not failed and rng.random() < 0.5:
                return rng.choice(["All checks passed!", "Success: no issues found in 42 source files", "0 problems"])
            return "\n".join(f"{rng.choice(fs)}:{rng.randint(1, 600)}:{rng.randint(1, 80)}: {rng.choice(pools['lint'])}"
                             for _ in range(min(n, 30))) + f"\nFound {min(n, 30)} errors."
        if kind == "gitstatus":
            return "\n".join(f"{rng.choice([' M', 'M ', '??', ' D', 'A '])} {f}"
                             for f in rng.sample(self.p.files, min(n, 12)))
        if kind == "gitstat":
            fs = rng.sample(self.p.files, min(n, 10))
            return "\n".join(f" {f} | {rng.randint(1, 80)} {'+' * rng.randint(1, 9)}{'-' * rng.randint(0, 6)}"
                             for f in fs) + \
                f"\n {len(fs)} files changed, {rng.randint(5, 300)} insertions(+), {rng.randint(0, 120)} deletions(-)"
        if kind == "gitlog":
            return "\n".join(f"{hexid(rng, 7)} {self.commit_msg()}" for _ in range(min(max(n, 3), 15)))
        if kind == "ls":
            fs = rng.sample(self.p.files, min(n, 20))
            return f"total {rng.randint(8, 400)}\n" + "\n".join(
                f"-rw-r--r--  1 dev dev {rng.randint(90, 40000):>6} Mar {rng.randint(1, 28):>2} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {f.rsplit('/', 1)[-1]}"
                for f in fs)
        if kind == "commit":
            return (f"[{self.rng.choice(self.p.branches)} {hexid(rng, 7)}] {self.commit_msg()}\n"
                    f" {rng.randint(1, 9)} files changed, {rng.randint(1, 300)} insertions(+), "
                    f"{rng.randint(0, 90)} deletions(-)")
        if kind == "json":
            items = [{"id": rng.randint(1, 99999), "status": rng.choice(["ok", "pending", "failed"]),
                      "name": self.var(),
                      "updated_at": f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T10:{rng.randint(10, 59)}:00Z"}
                     for _ in range(max(1, n // 6))]
            return json.dumps({"count": len(items), "results": items}, indent=2)
        # short
        return rng.choice([f"{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
                           "Success! Configuration is valid.",
                           f"Switched to a new branch 'fix/{self.noun()}'", f"{rng.randint(10, 3000)} {self.path()}",
                           "Saved working directory and index state WIP on main", "ok", self.zipf_sentence()])

    def test_output(self, n: int, failed: bool) -> str:
        rng, pools = self.rng, self.pools
        lang = self.p.lang
        total = max(n * rng.randint(3, 9), 4)
        nf = rng.randint(1, 3) if failed else 0
        secs = f"{rng.uniform(0.3, 90):.2f}"
        if n <= 3 and not failed:
            if lang == "python":
                return f"{'.' * min(total, 70)}{' ' * 4}[100%]\n{total} passed in {secs}s"
            if lang == "go":
                return "\n".join(f"ok  \tgithub.com/acme/{self.p.name}/{d}\t{rng.uniform(0.01, 3):.3f}s"
                                 for d in self.p.dirs[:n])
            if lang == "rust":
                return (f"running {total} tests\ntest result: ok. {total} passed; 0 failed; 0 ignored; "
                        f"finished in {secs}s")
            return (f" Test Files  {rng.randint(1, 20)} passed\n      Tests  {total} passed ({total})\n"
                    f"   Duration  {secs}s")
        lines = rng.choices(pools["test:" + ("python" if lang in ("python", "infra") else lang)], k=n)
        if failed:
            lines.append("")
            lines.extend(rng.choices(pools["test_fail"], k=rng.randint(6, 20)))
            lines.append(self.err())
            lines.append(f"FAILED {self.test()}::test_{self.fn()} - {self.err()}")
            lines.append(f"=========== {nf} failed, {total - nf} passed in {secs}s ===========")
        else:
            lines.append(f"=========== {total} passed in {secs}s ===========")
        return "\n".join(lines)


_SUMMARY_TPL = T(*SUMMARY_TEMPLATES)


@lru_cache(maxsize=1)
def _base() -> dict:
    """Vocabulary, Zipf weights, projects and line pools: fixed (independent of --seed)."""
    r = Random("backscroll-bench-vocabulary")
    rest = NOUNS + VERBS + VERBS_PAST + ADJECTIVES + GENERIC_IDENTS + NUMBERS + \
        [e.split(":")[0] for e in ERRORS]
    rest = sorted(set(rest) - set(FUNCTION_WORDS))
    r.shuffle(rest)
    words = FUNCTION_WORDS + rest
    projects = [Project(n, lang) for n, lang in PROJECTS]
    base = {"words": words, "word_cum": zipf_cum(len(words)), "projects": projects, "pools": {}}
    _base_pools(base, r)
    return base


def _base_pools(base: dict, r: Random) -> None:
    """Line pools for long outputs: code per language, logs, test output, build output, lint messages."""
    pools = base["pools"]
    t = Text.__new__(Text)
    t.rng, t.words, t.word_cum, t.pools, t.projects = r, base["words"], base["word_cum"], pools, base["projects"]
    t.slots = {
        "w": t.word, "noun": t.noun, "verb": t.verb, "verbs": t.verbs, "ved": t.ved, "adj": t.adj, "num": t.num,
        "err": t.err, "fn": t.fn, "fnc": t.fnc, "Fn": t.Fn, "Cls": t.cls, "Cls2": t.cls, "path": t.path,
        "test": t.test, "dir": t.dir, "mod": t.mod, "var": t.var, "var2": t.var,
        "sentence": lambda: t.zipf_sentence(3, 9),
    }
    by_lang: dict[str, list] = {}
    for p in base["projects"]:
        by_lang.setdefault(p.lang, []).append(p)
    for lang, (heads, bodies) in CODE_TPL.items():
        lines = []
        for _ in range(400):
            t.p = r.choice(by_lang[lang])
            lines.append(t.fill(r.choice(heads)))
            lines.extend(t.fill(r.choice(bodies)) for _ in range(r.randint(2, 12)))
            lines.append("")
        pools["code:" + lang] = lines
    levels = ["INFO"] * 8 + ["DEBUG"] * 4 + ["WARNING"] * 2 + ["ERROR"]
    log = []
    for _ in range(3000):
        t.p = r.choice(base["projects"])
        lvl = r.choice(levels)
        msg = t.err() if lvl == "ERROR" else t.zipf_sentence(4, 12)
        log.append(f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:"
                   f"{r.randint(0, 59):02d}.{r.randint(0, 999):03d}Z {lvl:<7} "
                   f"[{r.choice(['worker', 'web', 'sched', 'api'])}-{r.randint(1, 8)}] "
                   f"{t.mod()}: {msg} ({t.var()}={r.randint(0, 5000)}, took {r.randint(1, 3000)}ms)")
    pools["log"] = log
    for lang in ("python", "ts", "go", "rust"):
        lines = []
        ps = by_lang[lang]
        for _ in range(2500):
            t.p = r.choice(ps)
            res = r.choice(["PASSED"] * 12 + ["SKIPPED", "XFAIL"])
            if lang == "python":
                lines.append(f"{t.test()}::test_{t.fn()} {res} [{r.randint(1, 100):>3}%]")
            elif lang == "ts":
                mark = "✓" if res == "PASSED" else "↓"
                lines.append(f" {mark} {t.test()} > {t.cls()} > {t.fnc()} {r.randint(1, 400)}ms")
            elif lang == "go":
                verdict = "PASS" if res == "PASSED" else "SKIP"
                lines.append(f"=== RUN   Test{t.Fn()}\n--- {verdict}: Test{t.Fn()} ({r.uniform(0, 2):.2f}s)")
            else:
                lines.append(f"test {t.var()}::tests::{t.fn()} ... {'ok' if res == 'PASSED' else 'ignored'}")
        pools["test:" + lang] = lines
    fail = []
    for _ in range(800):
        t.p = r.choice(base["projects"])
        fail.append(r.choice([
            f'  File "/home/dev/{t.p.name}/{t.path()}", line {r.randint(1, 900)}, in {t.fn()}',
            f"    {t.var()} = {t.fn()}({t.var()})", f"E       {t.err()}",
            f"E       assert {r.randint(0, 99)} == {r.randint(0, 99)}",
            f"{t.path()}:{r.randint(1, 900)}: in {t.fn()}", "Traceback (most recent call last):",
            f"    raise {t.cls()}Error({t.var()!r})",
            f"_ _ _ _ _ _ _ _ _ _ _ _ _ _ {t.fn()} _ _ _ _ _ _ _ _ _ _ _ _ _ _",
        ]))
    pools["test_fail"] = fail
    build = []
    for _ in range(1500):
        t.p = r.choice(base["projects"])
        build.append(r.choice([
            f"   Compiling {t.var().replace('_', '-')} v0.{r.randint(1, 30)}.{r.randint(0, 9)}",
            f"Collecting {t.var().replace('_', '-')}>={r.randint(1, 9)}.{r.randint(0, 20)}",
            f"  Downloading {t.var().replace('_', '-')}-{r.randint(1, 9)}.{r.randint(0, 20)}.0-py3-none-any.whl "
            f"({r.randint(10, 900)} kB)",
            f"added {r.randint(1, 900)} packages, and audited {r.randint(900, 2000)} packages in {r.randint(1, 40)}s",
            f"vite v5.{r.randint(0, 4)}.{r.randint(0, 9)} building for production...",
            f"dist/assets/{t.var()}-{hexid(r, 8)}.js   {r.randint(1, 900)}.{r.randint(10, 99)} kB │ "
            f"gzip: {r.randint(1, 200)}.{r.randint(10, 99)} kB",
            f"warning: unused variable: `{t.var()}`",
            f"go: downloading github.com/{t.var()}/{t.var()} v1.{r.randint(0, 20)}.{r.randint(0, 9)}",
            f"Successfully installed {t.var().replace('_', '-')}-"
            f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)}",
            f"    Finished `release` profile [optimized] target(s) in {r.randint(1, 200)}.{r.randint(10, 99)}s",
        ]))
    pools["build"] = build
    pools["lint"] = ["E501 Line too long (112 > 100)", "F401 `os` imported but unused", "W291 trailing whitespace",
                     'error: Argument 1 to "get" has incompatible type "int"; expected "str"  [arg-type]',
                     "B008 Do not perform function call in argument defaults",
                     "no-unused-vars: 'x' is assigned a value but never used", "SA4006: this value is never used",
                     "clippy::needless_borrow: this expression creates a reference which is immediately dereferenced",
                     "TS2322: Type 'string' is not assignable to type 'number'.",
                     "E711 Comparison to `None` should be `cond is None`"]


# --------------------------------------------------------------------------------------------
# Abstract actions (one tool call + its result), rendered per agent
# --------------------------------------------------------------------------------------------

class Action:
    __slots__ = ("kind", "cmd", "out", "failed", "path", "old", "new", "content", "pattern", "files", "argv", "extra")

    # The fields an action's kind uses are always set (see Text.action); the others stay None. They
    # are typed Any so that each renderer reads its kind's fields without a None check at every use.
    kind: str
    cmd: Any
    out: Any
    failed: bool
    path: Any
    old: Any
    new: Any
    content: Any
    pattern: Any
    files: Any
    argv: Any
    extra: Any

    def __init__(self, kind: str, **kw: Any) -> None:
        self.kind = kind
        self.cmd = self.out = self.path = self.old = self.new = self.content = self.pattern = None
        self.files = self.argv = self.extra = None
        self.failed = False
        for k, v in kw.items():
            setattr(self, k, v)


class Memory:
    """Assistant prose seen so far (for query echoes): (text, record_id, agent, project, ts_ms)."""

    def __init__(self):
        self.by_project: dict[str, list[tuple]] = {}

    def add(self, project: str, item: tuple) -> None:
        lst = self.by_project.setdefault(project, [])
        lst.append(item)
        if len(lst) > 400:
            del lst[:200]


def _age(now_ms: int, then_ms: int) -> str:
    s = max(0, (now_ms - then_ms) // 1000)
    for limit, unit, div in ((90, "s", 1), (5400, "min", 60), (129600, "h", 3600), (86400 * 45, "d", 86400)):
        if s < limit:
            return f"{s // div}{unit} ago"
    return fmt_ts(then_ms)[:10]


class Session:
    """Common machinery: a Text, a clock, the output lines and the record count."""

    agent = ""

    def __init__(self, text: Text, memory: Memory, project: Project, start_ms: int):
        self.t = text
        self.rng = text.rng
        self.mem = memory
        self.p = project
        self.now = start_ms
        self.lines: list[str] = []
        self.records = 0
        self.prose: list[tuple] = []  # this session's assistant prose, for echoes

    def tick(self, lo: float = 5.0, hi: float = 120.0) -> str:
        self.now += int(self.rng.uniform(lo, hi) * 1000)
        return fmt_ts(self.now)

    def remember(self, text: str, record_id: str) -> None:
        item = (text, record_id, self.agent, self.p.name, self.now)
        self.prose.append(item)
        if self.rng.random() < 0.3:
            self.mem.add(self.p.name, item)

    def next_action(self) -> Action:
        t, rng = self.t, self.rng
        r = rng.random()
        if r < 0.02:
            return self.echo_action()
        if r < 0.42:
            cmd, kind = t.command()
            failed = kind in ("test", "build", "lint") and rng.random() < 0.15
            out = t.output(kind, failed=failed)
            if kind != "empty" and not failed and rng.random() < 0.03:
                out = ""
            return Action("shell", cmd=cmd, out=out, failed=failed, extra=kind)
        if r < 0.66:
            path = t.path()
            n = t.n_lines("code")
            return Action("read", path=path, content=t.code_lines(n),
                          extra=rng.randint(1, 40) if rng.random() < 0.2 else 1)
        if r < 0.82:
            old = t.code_lines(rng.randint(1, 8))
            new = t.code_lines(rng.randint(1, 10))
            return Action("edit", path=t.path(), old=old, new=new, content=t.code_lines(rng.randint(20, 160)),
                          extra=rng.randint(1, 400))
        if r < 0.93:
            pat = rng.choice([t.fn(), t.cls(), t.var(), f"def {t.fn()}", f"{t.cls()}|{t.fn()}"])
            return Action("grep", pattern=pat, out=t.output("grep"), files=rng.sample(t.p.files, rng.randint(1, 6)),
                          extra=rng.random() < 0.6)
        if r < 0.97:
            return Action("write", path=f"{t.dir()}/{t.var()}.{EXT[t.p.lang]}",
                          content=t.code_lines(rng.randint(15, 160)))
        ext = EXT[t.p.lang]
        return Action("glob", pattern=rng.choice([f"**/*.{ext}", f"{t.dir()}/**/*.{ext}", "**/*test*"]),
                      files=rng.sample(t.p.files, rng.randint(1, min(30, len(t.p.files)))))

    def echo_action(self) -> Action:
        """``backscroll search <words>`` whose output repeats earlier assistant prose."""
        rng, t = self.rng, self.t
        pool = self.prose[-30:] + self.mem.by_project.get(self.p.name, [])[-50:]
        hits = rng.sample(pool, min(len(pool), rng.randint(1, 5))) if pool else []
        if hits:
            words = [w.strip("`.,:;()'\"") for w in hits[0][0].split()]
            words = [w.lower() for w in words if len(w) > 3 and w.isascii() and w.replace("_", "").isalnum()]
            words = [w for w in dict.fromkeys(words) if w not in _FUNCTION_SET]
            q = " ".join(rng.sample(words, min(len(words), rng.randint(2, 4)))) if words else t.noun()
        else:
            q = f"{t.noun()} {t.noun()}"
        as_json = False
        if self.agent == "codex" and rng.random() < 0.25:
            argv = ["backscroll", "search", q]
            cmd = shlex.join(argv)
        else:
            form = rng.choice(ECHO_FORMS)
            as_json = "--json" in form and "jq" not in form
            cmd = form.format(qw=q, qq=shlex.quote(q), q=q, cwd=self.p.cwd, proj=self.p.name)
            argv = None
        if not hits:
            out = "No matches."
        elif as_json:
            out = json.dumps({"schema_version": 1, "query": q, "mode": "hybrid", "results": [
                {"rank": i + 1, "record_id": rid, "agent": ag, "project": proj, "role": "assistant",
                 "timestamp": fmt_ts(ts), "text": text, "snippet": text[:200]}
                for i, (text, rid, ag, proj, ts) in enumerate(hits)]}, indent=2, ensure_ascii=False)
        elif "jq" in cmd:
            out = "\n".join(json.dumps(text[:200], ensure_ascii=False) for text, *_ in hits)
        else:
            out = "\n".join(f"{i + 1:>2}. {ag} · {proj} · {_age(self.now, ts)} · assistant\n    {text[:300]}\n"
                            f"    backscroll show {rid}" for i, (text, rid, ag, proj, ts) in enumerate(hits))
        return Action("shell", cmd=cmd, out=out, argv=argv, extra="echo")

    def plan_turns(self, target: int):
        """Yield per turn: number of tool steps; the writer stops once ``target`` records exist."""
        weights = (20, 28, 22, 13, 8, 4, 3, 2)  # mean ~2 tool steps per turn
        steps = (0, 1, 2, 3, 4, 5, 7, 10)
        while self.records < target:
            yield self.rng.choices(steps, weights)[0]


# --------------------------------------------------------------------------------------------
# Claude Code
# --------------------------------------------------------------------------------------------

_MS_2026_03 = int(datetime(2026, 3, 1, tzinfo=UTC).timestamp() * 1000)


def _claude_model(ms: int) -> str:
    return "claude-sonnet-4-5-20250929" if ms < _MS_2026_03 else "claude-sonnet-4-6"


class ClaudeGen(Session):
    agent = "claude"

    def __init__(self, text, memory, project, start_ms, session_id: str, *, agent_id: str | None = None):
        super().__init__(text, memory, project, start_ms)
        rng = self.rng
        self.session_id = session_id
        self.agent_id = agent_id
        self.last: str | None = None
        month = (start_ms - int(YEAR_START.timestamp() * 1000)) // (30 * 86_400_000)
        self.version = f"2.{min(month // 4, 2)}.{(month * 7 + rng.randint(0, 6)) % 40}"
        self.branch = rng.choice(project.branches)
        self.model = _claude_model(start_ms)
        if rng.random() < 0.25:
            self.model = self.model.replace("sonnet", "opus").replace("-20250929", "-20251101")
        self.slug = f"{text.adj()}-{text.verb()}ing-{rng.choice(['finch', 'wren', 'otter', 'badger', 'heron', 'lynx'])}"
        self.head = {"parentUuid": None, "isSidechain": agent_id is not None, "userType": "external",
                     "cwd": project.cwd, "sessionId": session_id, "version": self.version, "gitBranch": self.branch,
                     "slug": self.slug}
        self.n_msg = 0

    # lines -----------------------------------------------------------------------------
    def _emit(self, kind: str, message: dict, ts: str, **extra) -> str:
        uid = uuid4(self.rng)
        obj = dict(self.head)
        obj["parentUuid"] = self.last
        obj["type"] = kind
        obj["message"] = message
        obj["uuid"] = uid
        obj["timestamp"] = ts
        if extra:
            obj.update(extra)
        if self.agent_id:
            obj["agentId"] = self.agent_id
        self.lines.append(dumps(obj))
        self.last = uid
        return uid

    def _usage(self, out_tokens: int) -> dict:
        rng = self.rng
        cc = rng.randint(0, 4000)
        return {"input_tokens": rng.randint(3, 12), "cache_creation_input_tokens": cc,
                "cache_read_input_tokens": rng.randint(8000, 160000),
                "cache_creation": {"ephemeral_5m_input_tokens": cc, "ephemeral_1h_input_tokens": 0},
                "output_tokens": out_tokens, "service_tier": "standard"}

    def _assistant_msg(self, content: list, stop: str | None) -> dict:
        self.n_msg += 1
        return {"model": self.model, "id": "msg_01" + b62(self.rng, 22), "type": "message", "role": "assistant",
                "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": self._usage(self.rng.randint(20, 900))}

    def snapshot(self, ts: str) -> None:
        mid = uuid4(self.rng)
        self.lines.append(dumps({"type": "file-history-snapshot", "messageId": mid,
                                 "snapshot": {"messageId": mid, "trackedFileBackups": {}, "timestamp": ts},
                                 "isSnapshotUpdate": False}))

    def user(self, text: str | None = None) -> None:
        rng = self.rng
        ts = self.tick()
        if self.agent_id is None:
            self.snapshot(ts)
        text = text or self.t.user_text()
        if rng.random() < 0.05:
            text += ("\n\n<system-reminder>\nThe user opened the file " + self.p.cwd + "/" + self.t.path() +
                     " in the IDE. This may or may not be related to the current task.\n</system-reminder>")
        content: object = text if rng.random() < 0.8 else [{"type": "text", "text": text}]
        extra = {}
        if self.agent_id is None:
            extra = {"thinkingMetadata": {"level": "high", "disabled": False, "triggers": []},
                     "permissionMode": "default"}
        self._emit("user", {"role": "user", "content": content}, ts, **extra)
        self.records += 1

    def assistant(self, text: str | None = None) -> str:
        rng = self.rng
        text = text or self.t.assistant_text()
        content = []
        if rng.random() < 0.3:
            content.append({"type": "thinking", "thinking": self.t.thinking(),
                            "signature": b64(rng, rng.randint(120, 400))})
        content.append({"type": "text", "text": text})
        uid = self._emit("assistant", self._assistant_msg(content, "end_turn"), self.tick(),
                         requestId="req_011C" + b62(rng, 18))
        self.records += 1
        self.remember(text, f"{uid}#{len(content) - 1}")
        return text

    def tool_use(self, name: str, inp: dict) -> str:
        rng = self.rng
        call_id = "toolu_01" + b62(rng, 22)
        self._emit("assistant", self._assistant_msg([{"type": "tool_use", "id": call_id, "name": name, "input": inp}],
                                                     "tool_use"), self.tick(), requestId="req_011C" + b62(rng, 18))
        self.records += 1
        return call_id

    def tool_result(self, call_id: str, content, result, *, is_error: bool = False) -> None:
        block = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if is_error or self.rng.random() < 0.9:
            block["is_error"] = is_error
        self._emit("user", {"role": "user", "content": [block]}, self.tick(), toolUseResult=result)
        text = content if isinstance(content, str) else "\n".join(b["text"] for b in content)
        if text.strip():
            self.records += 1

    def interrupted(self) -> None:
        self._emit("user", {"role": "user",
                            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]},
                   self.tick(1, 10))

    def action(self, a: Action) -> None:
        rng, cwd = self.rng, self.p.cwd
        if a.kind == "shell":
            call = self.tool_use("Bash", {"command": a.cmd,
                                          "description": f"{a.cmd.split()[0].capitalize()} {self.t.noun()}"})
            if rng.random() < 0.01:  # the user rejects the call
                msg = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
                       "(eg. if it was a file edit, the new_string was NOT written to the file). "
                       "STOP what you are doing and wait for the user to tell you how to proceed.")
                self.tool_result(call, msg, "Error: " + msg, is_error=True)
                self.interrupted()
                return
            out = a.out
            if a.failed:
                content = f"Exit code 1\n{out}"
                self.tool_result(call, content, "Error: " + content, is_error=True)
            else:
                self.tool_result(call, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
        elif a.kind == "read":
            fp = f"{cwd}/{a.path}"
            inp: dict[str, Any] = {"file_path": fp}
            start = a.extra
            if start > 1:
                inp.update(offset=start, limit=len(a.content))
            call = self.tool_use("Read", inp)
            numbered = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(a.content, start))
            body = "\n".join(a.content)
            self.tool_result(call, numbered, {"type": "text", "file": {
                "filePath": fp, "content": body, "numLines": len(a.content), "startLine": start,
                "totalLines": start + len(a.content) + rng.randint(0, 200)}})
        elif a.kind == "edit":
            fp = f"{cwd}/{a.path}"
            old, new = "\n".join(a.old), "\n".join(a.new)
            call = self.tool_use("Edit", {"file_path": fp, "old_string": old, "new_string": new})
            at = a.extra
            snippet = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(a.content[:rng.randint(5, 15)], at))
            self.tool_result(call, f"The file {fp} has been updated. Here's the result of running `cat -n` on a "
                                   f"snippet of the edited file:\n{snippet}",
                             {"filePath": fp, "oldString": old, "newString": new, "originalFile": "\n".join(a.content),
                              "structuredPatch": [{"oldStart": at, "oldLines": len(a.old), "newStart": at,
                                                   "newLines": len(a.new),
                                                   "lines": ["-" + x for x in a.old] + ["+" + x for x in a.new]}],
                              "userModified": False, "replaceAll": False})
        elif a.kind == "grep":
            content_mode = a.extra
            inp = {"pattern": a.pattern, "path": f"{cwd}/{self.t.dir()}"}
            if content_mode:
                inp.update({"output_mode": "content", "-n": True})
            call = self.tool_use("Grep", inp)
            if content_mode:
                out = a.out
                res = {"mode": "content", "numFiles": 0, "filenames": [], "content": out,
                       "numLines": out.count("\n") + 1}
            else:
                out = (f"Found {len(a.files)} file{'s' if len(a.files) > 1 else ''}\n"
                       + "\n".join(f"{cwd}/{f}" for f in a.files))
                res = {"mode": "files_with_matches", "filenames": [f"{cwd}/{f}" for f in a.files],
                       "numFiles": len(a.files)}
            self.tool_result(call, out, res)
        elif a.kind == "write":
            fp = f"{cwd}/{a.path}"
            body = "\n".join(a.content)
            call = self.tool_use("Write", {"file_path": fp, "content": body})
            self.tool_result(call, f"File created successfully at: {fp}",
                             {"type": "create", "filePath": fp, "content": body, "structuredPatch": [],
                              "originalFile": None})
        elif a.kind == "glob":
            call = self.tool_use("Glob", {"pattern": a.pattern})
            names = [f"{cwd}/{f}" for f in a.files]
            self.tool_result(call, "\n".join(names), {"filenames": names, "durationMs": rng.randint(2, 90),
                                                       "numFiles": len(names), "truncated": False})

    def preamble(self) -> None:
        """Slash-command and meta lines some sessions start with (none are records)."""
        if self.rng.random() < 0.12:
            cmd = self.rng.choice(["clear", "model", "compact", "init"])
            self._emit("user", {"role": "user", "content": "Caveat: The messages below were generated by the user "
                                "while running local commands. DO NOT respond to these messages or otherwise "
                                "consider them in your response unless the user explicitly asks you to."},
                       self.tick(0.1, 1), isMeta=True)
            self._emit("user", {"role": "user", "content": f"<command-name>/{cmd}</command-name>\n            "
                                f"<command-message>{cmd}</command-message>\n            <command-args></command-args>"},
                       self.tick(0.1, 1))
            self._emit("user", {"role": "user", "content": "<local-command-stdout></local-command-stdout>"},
                       self.tick(0.1, 1))

    def run(self, target: int, subagent_at: int | None = None, spawn=None) -> None:
        rng = self.rng
        if self.agent_id is None:
            self.preamble()
        turn = 0
        for steps in self.plan_turns(target):
            self.user()
            for _ in range(steps):
                if rng.random() < 0.33:
                    self.assistant()
                if turn == subagent_at and spawn is not None:
                    spawn(self)
                    subagent_at = None
                else:
                    self.action(self.next_action())
            self.assistant()
            turn += 1
        if subagent_at is not None and spawn is not None:
            spawn(self)
            self.assistant()

    def run_subagent(self, prompt: str) -> str:
        """A sidechain transcript: prompt, a few tool steps, a final report (returned)."""
        rng = self.rng
        self.user(prompt)
        for _ in range(rng.randint(3, 14)):
            if rng.random() < 0.25:
                self.assistant()
            self.action(self.next_action())
        return self.assistant(self.t.sentences(ASSISTANT_SENTENCES, rng.randint(3, 8)))


# --------------------------------------------------------------------------------------------
# Codex CLI
# --------------------------------------------------------------------------------------------

class CodexGen(Session):
    agent = "codex"

    def __init__(self, text, memory, project, start_ms, session_id: str):
        super().__init__(text, memory, project, start_ms)
        rng = self.rng
        self.session_id = session_id
        month = (start_ms - int(YEAR_START.timestamp() * 1000)) // (30 * 86_400_000)
        self.cli = f"0.{63 + month * 6 + rng.randint(0, 4)}.0"
        self.model = ["gpt-5.1-codex", "gpt-5.2-codex", "gpt-5.3-codex"][min(month // 4, 2)]
        self.exec_style = rng.random() < 0.45  # exec_command instead of shell
        self.tokens = 0

    def _line(self, kind: str, payload: dict, ts: str | None = None) -> None:
        self.lines.append(dumps({"timestamp": ts or self.tick(), "type": kind, "payload": payload}))

    def _dup_ts(self) -> str:
        self.now += self.rng.randint(1, 60)
        return fmt_ts(self.now)

    def header(self) -> None:
        rng, p = self.rng, self.p
        start = fmt_ts(self.now)
        self._line("session_meta", {"id": self.session_id, "timestamp": start, "cwd": p.cwd,
                                    "originator": "codex_cli_rs",
                                    "cli_version": self.cli, "source": "cli", "model_provider": "openai",
                                    "git": {"commit_hash": hexid(rng, 40), "branch": rng.choice(p.branches),
                                            "repository_url": f"git@github.com:acme/{p.name}.git"}}, start)
        if rng.random() < 0.5:
            self._line("response_item", {"type": "message", "role": "developer",
                                         "content": [{"type": "input_text", "text":
                       "<permissions instructions>\nFilesystem sandboxing decides which files you can read or write. "
                       "`sandbox_mode` is `workspace-write`.\n</permissions instructions>"}]}, self._dup_ts())
        if rng.random() < 0.4:
            self._line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text":
                       f"# AGENTS.md instructions for {p.cwd}\n\n<INSTRUCTIONS>\n## {p.name}\n\n- "
                       + self.t.sentences(USER_SENTENCES, 3) + "\n</INSTRUCTIONS>"}]}, self._dup_ts())
        self._line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text":
                   f"<environment_context>\n  <cwd>{p.cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                   f"  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
                   f"  <shell>bash</shell>\n</environment_context>"}]}, self._dup_ts())

    def turn_context(self) -> None:
        self._line("turn_context", {"turn_id": uuid7(self.rng, self.now), "cwd": self.p.cwd,
                                    "approval_policy": "on-request",
                                    "sandbox_policy": {"type": "workspace-write", "network_access": False},
                                    "model": self.model, "effort": self.rng.choice(["medium", "high"]),
                                    "summary": "auto"},
                   self._dup_ts())

    def token_count(self) -> None:
        rng = self.rng
        step = rng.randint(2000, 30000)
        self.tokens += step
        self._line("event_msg", {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": self.tokens, "cached_input_tokens": int(self.tokens * 0.8),
                                  "output_tokens": self.tokens // 20, "reasoning_output_tokens": self.tokens // 40,
                                  "total_tokens": self.tokens + self.tokens // 20},
            "last_token_usage": {"input_tokens": step, "cached_input_tokens": int(step * 0.8),
                                 "output_tokens": step // 20,
                                 "reasoning_output_tokens": step // 40, "total_tokens": step + step // 20},
            "model_context_window": 272000},
            "rate_limits": {"primary": {"used_percent": float(rng.randint(0, 90)), "window_minutes": 300,
                                        "resets_at": self.now // 1000 + rng.randint(60, 18000)}}}, self._dup_ts())

    def reasoning(self) -> None:
        rng = self.rng
        summary = f"**{self.t.verb().capitalize()}ing the {self.t.noun()}**\n\n{self.t.thinking()}"
        self._line("event_msg", {"type": "agent_reasoning", "text": summary})
        self._line("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
                                     "content": None,
                                     "encrypted_content": "gAAAAAB" + b64(rng, rng.randint(200, 1500), True)},
                   self._dup_ts())

    def user(self) -> None:
        text = self.t.user_text()
        self._line("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]})
        self._line("event_msg", {"type": "user_message", "message": text, "images": []}, self._dup_ts())
        self.records += 1

    def assistant(self) -> None:
        text = self.t.assistant_text()
        self._line("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})
        line_no = len(self.lines)
        self._line("event_msg", {"type": "agent_message", "message": text}, self._dup_ts())
        self.records += 1
        self.remember(text, f"{self.session_id}:{line_no}#0")

    def _call_id(self) -> str:
        return "call_" + b62(self.rng, 24)

    def _shell(self, cmd: str | None, out: str, failed: bool, argv: list | None = None) -> None:
        rng = self.rng
        call_id = self._call_id()
        code = 1 if failed else 0
        dur = round(rng.uniform(0.01, 30.0) if failed or len(out) > 2000 else rng.uniform(0.01, 2.0), 1)
        if self.exec_style and argv is None:
            args: dict[str, Any] = {"cmd": cmd, "workdir": self.p.cwd, "yield_time_ms": 10000,
                                    "max_output_tokens": 10000}
            self._line("response_item", {"type": "function_call", "name": "exec_command", "arguments": dumps(args),
                                         "call_id": call_id})
            output = (f"Chunk ID: {hexid(rng, 6)}\nWall time: {dur:.4f} seconds\nProcess exited with code {code}\n"
                      f"Original token count: {len(out) // 4}\nOutput:\n{out}")
            self.records += 2  # the header makes the output non-empty
        else:
            args = {"command": argv or ["bash", "-lc", cmd], "workdir": self.p.cwd, "timeout_ms": 120000}
            self._line("response_item", {"type": "function_call", "name": "shell", "arguments": dumps(args),
                                         "call_id": call_id})
            output = dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": dur}})
            self.records += 2 if out.strip() else 1
        self._line("response_item", {"type": "function_call_output", "call_id": call_id, "output": output})

    def _patch(self, patch: str, files: list[tuple[str, str]]) -> None:
        call_id = self._call_id()
        self._line("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                     "name": "apply_patch", "input": patch})
        out = "Success. Updated the following files:\n" + "".join(f"{k} {f}\n" for k, f in files)
        self._line("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output":
                   dumps({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})})
        self.records += 2

    def plan(self) -> None:
        t, rng = self.t, self.rng
        call_id = self._call_id()
        steps = [{"step": f"{t.verb().capitalize()} {t.noun()} in {t.fn()}", "status": s}
                 for s in ["completed"] * rng.randint(0, 2) + ["in_progress"] + ["pending"] * rng.randint(1, 3)]
        self._line("response_item", {"type": "function_call", "name": "update_plan", "call_id": call_id,
                                     "arguments": dumps({"explanation": t.zipf_sentence(), "plan": steps})})
        self._line("response_item", {"type": "function_call_output", "call_id": call_id, "output": "Plan updated"})
        self.records += 2

    def action(self, a: Action) -> None:
        rng = self.rng
        if rng.random() < 0.3:
            self.reasoning()
        if a.kind == "shell":
            self._shell(a.cmd, a.out, a.failed, a.argv)
        elif a.kind == "read":
            start = a.extra
            end = start + len(a.content) - 1
            cmd = rng.choice([f"sed -n '{start},{end}p' {a.path}", f"nl -ba {a.path} | sed -n '{start},{end}p'",
                              f"cat {a.path}"])
            if cmd.startswith("nl"):
                body = "\n".join(f"{i:>6}\t{x}" for i, x in enumerate(a.content, start))
            else:
                body = "\n".join(a.content)
            self._shell(cmd, body, False)
        elif a.kind == "edit":
            patch = (f"*** Begin Patch\n*** Update File: {a.path}\n@@\n" + "\n".join("-" + x for x in a.old) + "\n" +
                     "\n".join("+" + x for x in a.new) + "\n*** End Patch")
            self._patch(patch, [("M", a.path)])
        elif a.kind == "write":
            patch = (f"*** Begin Patch\n*** Add File: {a.path}\n" + "\n".join("+" + x for x in a.content)
                     + "\n*** End Patch")
            self._patch(patch, [("A", a.path)])
        elif a.kind == "grep":
            if a.extra:
                self._shell(f'rg -n "{a.pattern}" {self.t.dir()}', a.out, False)
            else:
                self._shell(f'rg -l "{a.pattern}"', "\n".join(a.files), False)
        elif a.kind == "glob":
            self._shell(f"rg --files | rg '{a.pattern.replace('**/', '').replace('*', '')}'", "\n".join(a.files), False)
        if rng.random() < 0.3:
            self.token_count()

    def run(self, target: int) -> None:
        rng = self.rng
        self.header()
        for steps in self.plan_turns(target):
            self.turn_context()
            self.user()
            self.token_count()
            if steps >= 3 and rng.random() < 0.2:
                self.plan()
            for _ in range(steps):
                if rng.random() < 0.33:
                    self.assistant()
                self.action(self.next_action())
            self.assistant()
            self.token_count()


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------

def _start_times(rng: Random, n: int) -> list[int]:
    base = int(YEAR_START.timestamp() * 1000)
    hours = list(range(24))
    hour_w = [1, 0.5, 0.3, 0.2, 0.2, 0.3, 0.8, 2, 5, 9, 10, 10, 7, 9, 10, 10, 9, 7, 5, 4, 3, 3, 2, 1.5]
    out = []
    for _ in range(n):
        day = rng.randrange(YEAR_DAYS)
        if (YEAR_START + timedelta(days=day)).weekday() >= 5 and rng.random() < 0.7:
            day = rng.randrange(YEAR_DAYS)
        h = rng.choices(hours, hour_w)[0]
        out.append(base + day * 86_400_000 + h * 3_600_000 + rng.randrange(3_600_000))
    out.sort()
    return out


def generate(out_dir: str | Path, sessions: int, seed: int = 0, codex_share: float = 0.3,
             mean_records: float = 100.0) -> dict:
    """Write the corpus; return the summary (the JSON line the CLI prints)."""
    started = time.perf_counter()
    out = Path(out_dir)
    claude_root = out / "claude" / "projects"
    codex_root = out / "codex" / "sessions"
    rng = Random(seed)
    text = Text(rng)
    memory = Memory()
    projects = text.projects
    proj_cum = zipf_cum(len(projects), 1.0, 1.5)
    order = list(range(len(projects)))
    rng.shuffle(order)  # which project is busiest depends on the seed
    mu = math.log(mean_records * 0.95) - 0.5  # lognormal, sigma 1: mean ~ mean_records incl. overshoot
    made_dirs: set[Path] = set()
    totals: dict[str, float] = {"sessions": 0, "files": 0, "lines": 0, "bytes": 0, "expected_records": 0}

    def write(path: Path, lines: list[str], ended_ms: int) -> None:
        d = path.parent
        if d not in made_dirs:
            d.mkdir(parents=True, exist_ok=True)
            made_dirs.add(d)
        data = ("\n".join(lines) + "\n").encode()
        path.write_bytes(data)
        os.utime(path, ns=(ended_ms * 1_000_000, ended_ms * 1_000_000))  # last written when the session ended
        totals["files"] += 1
        totals["lines"] += len(lines)
        totals["bytes"] += len(data)

    for start in _start_times(rng, sessions):
        project = projects[order[bisect.bisect_left(proj_cum, rng.random() * proj_cum[-1])]]
        text.p = project
        target = max(3, min(3000, int(rng.lognormvariate(mu, 1.0))))
        if rng.random() < codex_share:
            sid = uuid7(rng, start)
            gen = CodexGen(text, memory, project, start, sid)
            gen.run(target)
            name = f"rollout-{fmt_ts(start)[:19].replace(':', '-')}-{sid}.jsonl"
            d = fmt_ts(start)[:10].replace("-", "/")
            write(codex_root / d / name, gen.lines, gen.now)
            totals["expected_records"] += gen.records
        else:
            sid = uuid4(rng)
            cgen = ClaudeGen(text, memory, project, start, sid)
            spawn = None
            sub_at = None
            if rng.random() < 0.05:
                sub_at = rng.randint(0, 3)
                spawn = _spawner(text, memory, project, sid, claude_root, write, totals)
            cgen.run(target, sub_at, spawn)
            if rng.random() < 0.3:
                cgen.lines.insert(0, dumps({"type": "summary", "summary": text.title(), "leafUuid": cgen.last}))
            write(claude_root / project.slug / f"{sid}.jsonl", cgen.lines, cgen.now)
            totals["expected_records"] += cgen.records
        totals["sessions"] += 1
    totals["seconds"] = round(time.perf_counter() - started, 3)
    return totals


def _spawner(text, memory, project, sid, claude_root, write, totals):
    """A callback that runs a Task tool call in the parent, with its subagent transcript."""

    def spawn(parent: ClaudeGen) -> None:
        rng = parent.rng
        agent_id = hexid(rng, 16)
        prompt = text.fill(rng.choice(SUBAGENT_PROMPTS))
        desc = f"{text.verb().capitalize()} {text.noun()} {text.noun()}"
        call = parent.tool_use("Task", {"description": desc, "prompt": prompt, "subagent_type": "general-purpose"})
        sub = ClaudeGen(text, memory, project, parent.now, sid, agent_id=agent_id)
        report = sub.run_subagent(prompt)
        write(claude_root / project.slug / sid / "subagents" / f"agent-{agent_id}.jsonl", sub.lines, sub.now)
        totals["expected_records"] += sub.records
        took = sub.now - parent.now
        parent.now = sub.now
        parent.tool_result(call, [{"type": "text", "text": report}], {
            "status": "completed", "prompt": prompt, "agentId": agent_id, "content": [{"type": "text", "text": report}],
            "totalDurationMs": took, "totalTokens": rng.randint(5000, 90000),
            "totalToolUseCount": sub.records // 2})

    return spawn


# --------------------------------------------------------------------------------------------
# Appending to a live Claude session
# --------------------------------------------------------------------------------------------

def _last_envelope(path: Path) -> dict:
    """The last user/assistant line of a Claude file (read backwards in chunks)."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        end = fh.tell()
        chunk = 1 << 16
        buf = b""
        pos = end
        while pos > 0:
            step = min(chunk, pos)
            pos -= step
            fh.seek(pos)
            buf = fh.read(step) + buf
            lines = buf.split(b"\n")
            complete = lines if pos == 0 else lines[1:]
            for raw in reversed(complete):
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(obj, dict) and obj.get("type") in ("user", "assistant") and obj.get("uuid"):
                    return obj
            chunk *= 2
    raise ValueError(f"{path}: no Claude user/assistant line to continue from")


def append_lines(path: str | Path, k: int, seed: int = 0) -> dict:
    """Append ``k`` lines to an existing Claude session file, each exactly one record.

    The lines continue the session (same sessionId, cwd, branch, parentUuid chain, later
    timestamps): user prompts, assistant prose and tool call/result pairs. Deterministic for a given
    file state and seed (the file's size is mixed into the seed, so repeated calls add new uuids).
    Returns ``{"lines": k, "records": k, "bytes": n}``.
    """
    path = Path(path)
    size = path.stat().st_size
    last = _last_envelope(path)
    rng = Random(f"append:{seed}:{path.name}:{size}")
    text = Text(rng)
    cwd = last.get("cwd") or "/home/dev/shop"
    name = cwd.rstrip("/").rsplit("/", 1)[-1]
    project = next((p for p in text.projects if p.cwd == cwd), None)
    if project is None:
        project = Project(name, "python")
        project.cwd, project.slug = cwd, re.sub(r"[^A-Za-z0-9]", "-", cwd)
    text.p = project
    gen = ClaudeGen(text, Memory(), project, parse_ms(last["timestamp"]), last.get("sessionId", path.stem),
                    agent_id=last.get("agentId"))
    for key in ("isSidechain", "version", "gitBranch", "slug", "userType"):
        if key in last:
            gen.head[key] = last[key]
    gen.last = last["uuid"]
    # one record per line: no thinking blocks, snapshots or reminders
    plan: list[str] = []
    while len(plan) < k:
        left = k - len(plan)
        if not plan or (plan[-1] == "assistant" and rng.random() < 0.3):
            plan.append("user")
        elif left >= 2 and rng.random() < 0.6:
            plan += ["tool", "result"]
        else:
            plan.append("assistant")
    pending: tuple[str, str] | None = None
    for step in plan:
        if step == "user":
            text_ = text.user_text()
            gen._emit("user", {"role": "user", "content": text_}, gen.tick())
        elif step == "assistant":
            body = text.assistant_text()
            gen._emit("assistant", gen._assistant_msg([{"type": "text", "text": body}], "end_turn"), gen.tick(),
                      requestId="req_011C" + b62(rng, 18))
        elif step == "tool":
            cmd, kind = text.command()
            out = text.output(kind if kind != "empty" else "short")
            if not out.strip():
                out = "ok"
            pending = (gen.tool_use("Bash", {"command": cmd, "description": "run a command"}), out)
        else:
            assert pending is not None  # the plan puts "tool" before each "result"
            call, out = pending
            gen.tool_result(call, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
                            is_error=False)
    data = ("\n".join(gen.lines) + "\n").encode()
    with open(path, "ab") as fh:
        fh.write(data)
    return {"lines": len(gen.lines), "records": len(gen.lines), "bytes": len(data)}


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path, help="directory to write claude/ and codex/ into")
    ap.add_argument("--sessions", type=int, required=True, help="number of top-level sessions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--codex-share", type=float, default=0.3, help="fraction of Codex sessions (default 0.3)")
    ap.add_argument("--mean-records", type=float, default=100.0, help="mean records per session (default 100)")
    ap.add_argument("--force", action="store_true", help="delete OUT_DIR/claude and OUT_DIR/codex first")
    args = ap.parse_args(argv)
    existing = [d for d in (args.out_dir / "claude", args.out_dir / "codex") if d.exists()]
    if existing:
        if not args.force:
            ap.error(f"{existing[0]} already exists (use --force to replace it)")
        for d in existing:
            shutil.rmtree(d)
    summary = generate(args.out_dir, args.sessions, args.seed, args.codex_share, args.mean_records)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
