"""Homes of the editor agents for the tests (Cursor, Copilot, Cline, Roo, Kilo, Aider, Oh My Pi, Qwen, Kimi), built
from the real files under ``tests/data``."""

import json
import shutil
import sqlite3
from pathlib import Path

from helpers import TESTS

DATA = TESTS / "data"
NEW = ("cursor", "copilot", "cline", "roo", "kilo", "aider", "omp", "qwen", "kimi")
CODE = ".config/Code/User"


def build_cursor(home: Path) -> tuple[Path, Path]:
    """The Cursor CLI store and the editor's global (and one workspace) database from the JSON fixtures."""
    spec = json.loads((DATA / "cursor" / "cli_store.json").read_text())
    cli_db = home / ".cursor" / spec["path"]
    cli_db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(cli_db)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(spec["meta"]).encode().hex(),))
    for n, blob in enumerate(spec["blobs"]):
        data = bytes.fromhex(blob["binary"]) if "binary" in blob else json.dumps(blob).encode()
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (f"blob{n:03d}", data))
    conn.commit()
    conn.close()

    ed = json.loads((DATA / "cursor" / "editor.json").read_text())
    user = home / ".config" / "Cursor" / "User"
    gdb = user / "globalStorage" / "state.vscdb"
    gdb.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(gdb)
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)",
                     [(k, json.dumps(v)) for k, v in ed["cursorDiskKV"].items()])
    conn.executemany("INSERT INTO ItemTable VALUES (?, ?)", list(ed["ItemTable"].items()))
    conn.commit()
    conn.close()
    ws = user / "workspaceStorage" / ed["workspace"]["hash"]
    ws.mkdir(parents=True)
    (ws / "workspace.json").write_text(json.dumps({"folder": ed["workspace"]["folder"]}))
    conn = sqlite3.connect(ws / "state.vscdb")
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    composers = {"allComposers": [{"composerId": c, "type": "head"} for c in ed["workspace"]["composers"]]}
    conn.execute("INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps(composers),))
    conn.commit()
    conn.close()
    return cli_db, gdb


def install_all(bh) -> None:
    """Every fixture in its agent's default place (Aider under a configured root)."""
    home = bh.home
    build_cursor(home)
    shutil.copytree(DATA / "copilot" / "session-state", home / ".copilot" / "session-state")
    shutil.copytree(DATA / "copilot" / "workspaceStorage", home / CODE / "workspaceStorage")
    shutil.copytree(DATA / "cline" / "tasks", home / ".cline" / "data" / "tasks")
    for ext, n in (("rooveterinaryinc.roo-cline", 1), ("kilocode.kilo-code", 2)):  # task ids are per extension
        for task in (DATA / "cline" / "tasks").iterdir():
            shutil.copytree(task, home / CODE / "globalStorage" / ext / "tasks" / str(int(task.name) + n))
    repo = home / "code" / "retry-lib"
    repo.mkdir(parents=True)
    shutil.copyfile(DATA / "aider" / ".aider.chat.history.md", repo / ".aider.chat.history.md")
    bh.data.mkdir(parents=True, exist_ok=True)
    (bh.data / "config.toml").write_text(f'[roots]\naider = ["{home / "code"}"]\n')
    shutil.copytree(DATA / "omp", home / ".omp" / "agent" / "sessions" / "--home-dev-chat--")
    shutil.copytree(DATA / "qwen", home / ".qwen")
    shutil.copytree(DATA / "kimi", home / ".kimi")
