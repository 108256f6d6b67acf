"""No network, ever, and no file outside the data dir, with the real model, watched from outside the process.

The CLI runs as a child process under ``strace -f`` (every thread, every syscall that touches the network
or a file), inside a fresh network namespace (``unshare -n``) where that is permitted, so that nothing
could leave even if something tried. HOME, TMPDIR, XDG_CACHE_HOME and the working directory are fresh
directories; the child's environment does not carry the switches the test runner sets
(``HF_HUB_OFFLINE``, ``ORT_DISABLE_TELEMETRY``): backscroll must set what it needs itself.

Patching ``socket`` in-process (the earlier test) cannot see this class of problem: onnxruntime's
telemetry resolves and uploads from native threads through its own bundled curl.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backscroll.indexes import embed

STRACE = shutil.which("strace")
UNSHARE = shutil.which("unshare")

pytestmark = pytest.mark.skipif(STRACE is None or not sys.platform.startswith("linux"),
                                reason="needs strace on Linux to watch the child's syscalls")

# Variables that would make the test pass by the runner's grace rather than backscroll's own doing.
_CLEARED = ("HF_HUB_OFFLINE", "ORT_DISABLE_TELEMETRY", "FASTEMBED_CACHE_PATH", "HF_HOME", "XDG_DATA_HOME",
            "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "BACKSCROLL_CONFIG", "PYTHONPYCACHEPREFIX")
_WRITE_FLAGS = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC")
_RESOLVER_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/host.conf")
_RESOLVER_SOCKETS = ("systemd/resolve",)  # nscd also serves user lookups; its DNS use reads resolv.conf
_DEVICES = ("/dev/null", "/dev/tty", "/dev/pts/")


def _netns_ok() -> bool:
    if UNSHARE is None:
        return False
    try:
        return subprocess.run([UNSHARE, "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


NETNS = _netns_ok()


def _path_of(call: str) -> list[str]:
    """The paths a traced call names (``strace -y`` prints a directory fd as ``3</dir>``)."""
    paths = []
    for m in re.finditer(r'(?:(-?\d+|AT_FDCWD)<([^>]*)>, )?"((?:[^"\\]|\\.)*)"', call):
        dirpath, name = m.group(2), m.group(3)
        if not name.startswith("/") and dirpath:
            name = f"{dirpath}/{name}"
        paths.append(name)
    return paths


def network_violations(trace: str) -> list[str]:
    """Lines showing a name lookup or a connection that does not stay on this machine's loopback."""
    bad = []
    for line in trace.splitlines():
        call = line.split(" ", 1)[1] if " " in line else line
        if re.match(r"(connect|sendto|sendmsg|sendmmsg)\(", call):
            if "sa_family=AF_INET" in call:  # AF_INET and AF_INET6
                if not re.search(r'inet_addr\("127\.|inet_pton\(AF_INET6, "::1"', call):
                    bad.append(line)
            elif "sa_family=AF_UNIX" in call and any(s in call for s in _RESOLVER_SOCKETS):
                bad.append(line)
        elif re.match(r"(open|openat|openat2|stat|newfstatat|statx|access|faccessat2?)\(", call):
            if any(p in _RESOLVER_FILES for p in _path_of(call)) and "ENOENT" not in call:
                bad.append(line)
    return bad


def file_violations(trace: str, allowed: Path) -> list[str]:
    """Lines that create, write, rename or remove a file anywhere but under ``allowed``."""
    bad = []
    root = str(allowed)
    for line in trace.splitlines():
        call = line.split(" ", 1)[1] if " " in line else line
        if "= -1 " in call or "<unfinished" in call:
            continue  # a failed call wrote nothing (resumed calls repeat the result on their own line)
        name = call.split("(", 1)[0]
        if name in ("open", "openat", "openat2", "creat"):
            if name != "creat" and not _WRITE_FLAGS.search(call):
                continue
            paths = _path_of(call)[:1]
        elif name in ("mkdir", "mkdirat", "rename", "renameat", "renameat2", "link", "linkat", "symlink",
                      "symlinkat", "unlink", "unlinkat", "rmdir", "truncate", "chmod", "fchmodat", "utimensat"):
            paths = _path_of(call)
        else:
            continue
        for p in paths:
            if p == root or p.startswith(root + "/") or p.startswith(_DEVICES) or p.startswith("/proc/"):
                continue
            bad.append(line)
    return bad


class Watched:
    """Fresh HOME/TMPDIR/XDG_CACHE_HOME/cwd, a data dir, and a runner that traces each child."""

    def __init__(self, root: Path, home: Path, data: Path):
        self.root, self.home, self.data = root, home, data
        self.tmp, self.xdg_cache, self.cwd = root / "tmp", root / "xdg-cache", root / "cwd"
        for d in (self.tmp, self.xdg_cache, self.cwd):
            d.mkdir(parents=True)
        self.traces: list[str] = []

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in _CLEARED and not k.startswith("BACKSCROLL_")}
        env.update(HOME=str(self.home), TMPDIR=str(self.tmp), XDG_CACHE_HOME=str(self.xdg_cache),
                   BACKSCROLL_HOME=str(self.data), BACKSCROLL_EMBEDDER="minilm", PYTHONDONTWRITEBYTECODE="1",
                   NO_COLOR="1")
        return env

    def run(self, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
        assert STRACE is not None  # the module is skipped without it
        out = self.root / f"trace-{len(self.traces)}.txt"
        cmd = [STRACE, "-f", "-qq", "-y", "-s", "256", "-e", "trace=%network,%file", "-o", str(out), *argv]
        if NETNS:
            assert UNSHARE is not None  # NETNS needs it
            cmd = [UNSHARE, "-n", *cmd]
        proc = subprocess.run(cmd, cwd=self.cwd, env=self.env(), capture_output=True, text=True, timeout=timeout)
        self.traces.append(out.read_text(errors="replace"))
        return proc

    def backscroll(self, *args: str) -> subprocess.CompletedProcess:
        return self.run(sys.executable, "-m", "backscroll", *args)

    def check(self, home_before: set[str]) -> None:
        trace = "\n".join(self.traces)
        assert network_violations(trace) == []
        assert file_violations(trace, self.data) == []
        for d in (self.tmp, self.xdg_cache, self.cwd):
            assert sorted(p.name for p in d.iterdir()) == [], f"files left in {d}"
        assert _tree(self.home) == home_before, "files written under HOME"


def _tree(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


@pytest.fixture
def watched(backscroll_home) -> Watched:
    return Watched(backscroll_home.root, backscroll_home.home, backscroll_home.data)


# -- the detectors themselves --------------------------------------------------------------------

def test_detectors_see_dns_remote_connects_and_stray_files(tmp_path):
    data = tmp_path / "data"
    seen = "\n".join([
        '7 connect(8<UDP:[1]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0',
        '7 connect(9<TCP:[2]>, {sa_family=AF_INET6, sin6_port=htons(443), '
        'sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2603:1030::1", &sin6_addr), '
        'sin6_scope_id=0}, 28) = -1 ENETUNREACH',
        '7 openat(AT_FDCWD</w>, "/etc/resolv.conf", O_RDONLY|O_CLOEXEC) = 3</etc/resolv.conf>',
        '7 connect(3<UNIX:[4]>, {sa_family=AF_UNIX, sun_path="/run/systemd/resolve/io.systemd.Resolve"}, 42) = 0',
    ])
    assert len(network_violations(seen)) == 4
    fine = "\n".join([
        '7 connect(5<TCP:[3]>, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        '7 openat(AT_FDCWD</w>, "/etc/resolv.conf", O_RDONLY) = -1 ENOENT (No such file or directory)',
    ])
    assert network_violations(fine) == []
    writes = "\n".join([
        '7 openat(AT_FDCWD</w>, "/x/tmp/.ses", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 6</x/tmp/.ses>',
        '7 mkdir("/x/cache/Microsoft", 0700) = 0',
        '7 openat(6</x/cache/ms>, "deviceid.tmp.5d", O_WRONLY|O_CREAT|O_EXCL, 0600) = 7',
        f'7 openat(AT_FDCWD</w>, "{data}/backscroll.db", O_RDWR|O_CREAT|O_CLOEXEC, 0644) = 3',
        '7 openat(AT_FDCWD</w>, "/usr/lib/x.so", O_RDONLY|O_CLOEXEC) = 3',
        '7 openat(AT_FDCWD</w>, "/dev/null", O_WRONLY) = 3',
        '7 mkdir("/x/tmp/fastembed_cache", 0777) = -1 EEXIST (File exists)',
        f'7 openat(AT_FDCWD<{data}>, "vectors/m.npy", O_WRONLY|O_CREAT, 0644) = 3',
        '7 openat(AT_FDCWD</x/cwd>, "stray.log", O_WRONLY|O_CREAT, 0644) = 3',
    ])
    assert [line.split('"')[1] for line in file_violations(writes, data)] == ["/x/tmp/.ses", "/x/cache/Microsoft",
                                                                              "deviceid.tmp.5d", "stray.log"]


# -- the real thing ------------------------------------------------------------------------------

@pytest.mark.slow  # loads the real model
def test_index_and_a_fresh_hybrid_search_with_the_real_model_stay_offline_and_in_the_data_dir(
        session_builder, watched):
    s = session_builder.claude()
    s.user("which library handles our date maths?")
    s.assistant("pendulum, because it is timezone aware and its durations survive daylight saving changes")
    home_before = _tree(watched.home)

    idx = watched.backscroll("index", "--json")
    assert idx.returncode == 0, idx.stderr
    report = json.loads(idx.stdout)
    assert report["units_embedded"] == 2 and report["notes"] == []
    found = watched.backscroll("search", "calendar arithmetic library", "--json", "--weak")  # (ranking, not judging)
    assert found.returncode == 0, found.stderr
    res = json.loads(found.stdout)
    assert res["mode"] == "hybrid" and "pendulum" in json.dumps(res["results"])

    model = Path(embed.model_path()).name
    assert all(model in trace for trace in watched.traces), "both commands loaded the real model"
    watched.check(home_before)


_LINGER = """
import sys, time
from backscroll.indexes import embed
embed.load(bulk=sys.argv[1] == "bulk").embed(["is anyone listening?"])
time.sleep(float(sys.argv[2]))
"""


@pytest.mark.slow
def test_a_process_holding_the_model_stays_silent_while_it_lives(watched):
    # onnxruntime 1.32's telemetry uploader wakes about 9 s after import (then every ~5 s): a short
    # command exits before it, a long index or a program using backscroll as a library does not.
    home_before = _tree(watched.home)
    proc = watched.run(sys.executable, "-c", _LINGER, "query", "12")
    assert proc.returncode == 0, proc.stderr
    watched.check(home_before)


def test_importing_backscroll_leaves_the_environment_alone(tmp_path):
    code = ("import os; before = dict(os.environ); "
            "import backscroll, backscroll.archive, backscroll.indexes.embed, backscroll.cli, "
            "backscroll.indexes.vectors; "
            "assert dict(os.environ) == before, set(os.environ.items()) ^ set(before.items())")
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
