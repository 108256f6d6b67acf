#!/usr/bin/env python3
"""Real people's Aider chat logs (``.aider.chat.history.md``), as they committed them, for a search benchmark.

    python bench/aider_corpus.py OUT [--mirrors DIR] [--force]

writes ``OUT/<owner>__<name>/.aider.chat.history.md`` for each of the repositories below (byte-identical to the
pinned blob) and ``OUT/manifest.json``, and prints a summary. The output is deterministic: the same mirrors give
byte-identical files. Nothing here touches the network and nothing of the data is committed: the script reads
one pinned blob of each of 42 public repositories from local bare git mirrors. It is a fourth corpus for the
search benchmark, and the first of real people at work (the other three are SWE-bench agent runs or chats).

Build it at ``/tmp/aider-corpus``, always: Aider keeps no session ids, and backscroll derives them from the
absolute directory of the file (``aider-`` + the first 8 hex digits of sha1(str(directory)) + ``-`` + the session
header's time with ``-`` and ``:`` removed, e.g. ``aider-1a2b3c4d-20250312T101500``; lines before the first header
make a session ``...-start``), so the session ids of ``bench/queries/aider-real-v1.toml`` hold for that path
only. The manifest gives the ids for the OUT actually used. Index it with ``[roots] aider = ["/tmp/aider-corpus"]``
and ``TZ=UTC`` (the header times carry no zone; backscroll reads them in ``$TZ``).

Sources: each file is read with ``git cat-file`` at its pinned commit from ``DIR/<owner>+<name>/repo``
(``--mirrors`` defaults to ``$BACKSCROLL_MIRRORS`` or ``/work/.mirror``; a mirror is a bare clone with history,
e.g. ``git clone --bare https://github.com/Sprayer115/KLIMA DIR/Sprayer115+KLIMA/repo``), and checked against
the pinned blob id. Some pinned commits are no longer on any branch (the file was deleted or the history
rewritten later); a mirror must still hold them. Three files are not at the repository root
(``backend/``, ``trash/``), and ``ZeyadMahfouzz/aiderAsgn`` renamed its log ``aider.chat.history.md``: each is
written as ``OUT/<owner>__<name>/.aider.chat.history.md`` all the same.

Licence caveat: these are files their owners committed to public GitHub repositories, most of which carry no
licence (or one that does not mention the chat log). They are read from local mirrors to measure search quality
on this machine and never redistributed; nothing of them is committed to this repository, and the queries quote
them only in short ``expected`` snippets. The logs hold what their owners pasted, including a few API keys and
private paths; backscroll's redaction applies at index time.

Selection (December 2026). Candidates: the repositories the code index lists as holding
``.aider.chat.history.md`` (its listing stops after the first 100 names in ASCII order, 0-9 and A-B), a few that
hold it in a sub-directory or under the name ``aider.chat.history.md``, and repositories whose committed Aider
tag caches (``.aider.tags.cache.v3/cache.db``, ``-wal``, ``-shm``, ``.aider.tags.cache.v4/cache.db``,
``-wal``) suggest they did not ignore ``.aider*``, each checked for the chat log. Of those that could be
fetched, kept: histories whose requests are mostly English prose written by the person (not scripted prompt
loops, not pastes alone), with at least 2 sessions that hold user input and about 20 or more user inputs in
all, about real software work (web apps, bots, tooling, data and ML projects, a robotics team's code, a
physics simulation). Of a file's versions in history the largest of at most 3 MB is pinned (one repository,
``BBXtreme/Waterfront``, grew to 4 MB later). Left out: logs mainly in Czech, French, Spanish, Portuguese,
German, Russian, Turkish or Chinese, logs of one session or a handful of inputs, scripted runs (the same
generated prompt in every session: ``BartoshMaxim/TradePirates``, ``ForestMars/pedal-dev``,
``Guy1270/frc-shooter-2026``), a duplicate (``BBXtreme/waterfront-docs`` holds the same log as
``BBXtreme/Waterfront``), and repositories with no fetchable snapshot or whose snapshot lacks the commit.

Manifest: one entry per repository (``repo``, ``commit``, ``source_path``, ``blob``, ``dir``, ``bytes``,
``sessions``), each session ``{"session_id", "start", "line", "first_user_line", "inputs", "messages"}`` in file
order:
``start`` is the header's local time as written (``None`` for a ``-start`` session), ``line`` its 1-based line,
``inputs`` the number of user inputs (``####`` lines; consecutive ones joined by a trailing two-space line break
count once; Aider's own answers to its confirmation questions, ``... (Y)es/(N)o ...: a``, and ``<blank>`` do not
count), ``messages`` those of them that are the person's words to the model (not a ``/command`` or ``!shell``
line, but ``/ask``, ``/code``, ``/architect``, ``/context`` and ``/help`` with text are, the prefix dropped), and
``first_user_line`` the first line of the first message (``None`` when there is none). Both counts are of the
log as written: Aider logs an ``/ask``-style message a second time when the new mode takes it, and an architect's
plan as the editor's input; backscroll drops those echoes, these counts keep them. Two sessions of one file
may share an id when Aider wrote the same header second twice (``Ahmad-A0/Inversity-SnapSwap`` has one such
pair, both without user input).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from mirrors import CorpusError, Mirror, built, corpus_arguments

FILE_NAME = ".aider.chat.history.md"
CANONICAL_OUT = Path("/tmp/aider-corpus")

# (repository, commit, path of the log in it, blob id of the log at that commit)
SOURCES: tuple[tuple[str, str, str, str], ...] = (
    ("AFI-Protocol/afi-core", "59f264996752251a16788fce2715c2cec7252970", ".aider.chat.history.md",
     "0764ba9384ab2fb6ee0e388fdb9d397a9c5cfb90"),
    ("Ahmad-A0/Inversity-SnapSwap", "0760d8d15d524d9102df4cbc1e2e58c74ecc68e0", ".aider.chat.history.md",
     "55eb3368411630abeb1eb190f74b9590a4eecb3b"),
    ("Ahmedrali/rfp_response_platform", "39806ef9e8f4f5cffac09c16ca0ef8735825aeea", "backend/.aider.chat.history.md",
     "35c54f7744d2a42fc4ede3068254fc96548d02ba"),
    ("AndreasDebel/HaaV-CatalogService", "580e3461dc57df011b992d96ea3494054a83547c", ".aider.chat.history.md",
     "4357f3a4420187c9718020eee7684e95b163518d"),
    ("Aquaticat/Monochromatic", "56372c6db0d4f2431d99bfdbe2142702ed891101", ".aider.chat.history.md",
     "42e63b09b50dd729cf21e0ac89fa5eea78206abe"),
    ("Arjo67-tech/black-hole-faraday-reconstruction-", "898996b699945e8a03dc4b8da19fbcb6d8f51fb3",
     ".aider.chat.history.md", "4a97606359f687e423ff2e49f49fac2c4805f24d"),
    ("ArkMaster123/clientdemoNISTAI", "ce7c3092ade36b701a59c2448debdfc0e3cb6cd8", ".aider.chat.history.md",
     "b5147c427be24fb3677666480bbfef7503e3a532"),
    ("BBXtreme/Waterfront", "5faf532b7307187da42016a8bb6a08af82a313d1", ".aider.chat.history.md",
     "7aab82f0b52983bd88ddfcd7210895064246e725"),
    ("BeauCranston/car-game", "62288fd46cb451c94de0fd94835ffe221dd3cc75", ".aider.chat.history.md",
     "90e7e23baa1666dec1127078a7f69e78a11b5226"),
    ("BharathKumarKS/pdf_ingestion", "6727ea1c4e1358d997a1c2631ff8cfb1e1f474d3", ".aider.chat.history.md",
     "85f017b59f16ab0813462c163eb62cb85d837ac3"),
    ("BoozeLee/ai-development-framework-1", "da05f2b727025d22d985b6ce99f2909f84f25276", ".aider.chat.history.md",
     "a2cfebb6f09ed4ec5f2cc4cd761e99d12611a0f9"),
    ("Bucharest-Squad/MENA-mobile-ci-cd", "bbdb4518e86cd709611046b3c7da02aa2c8eae02", ".aider.chat.history.md",
     "d9320d21fa74965ac9bfa1f428ce036a1872f488"),
    ("Ch405-L9/og_bolt", "011033878fb23bd39ef93bcfbc82ecb6830bc2bc", ".aider.chat.history.md",
     "9a86e4c5687de6aefe7b38cff2488820b5b944e6"),
    ("Chatmala/super_ai_agents", "24c7e322a6a5f0d465826a7e6b371d7db3fc16f0", ".aider.chat.history.md",
     "50996bbb66debac1bb232c6f65390b40ad2fed47"),
    ("ChronoDEV76/ProBrandwacht", "78749da9969804f9dc852bc504f959e6768d70c7", ".aider.chat.history.md",
     "a4e05f5a6c6fa63f6250d886c8cdbfcde1fa8bff"),
    ("Consistos/VigInt", "c3a8e89ac00626b9836c883660dc14c354f14f18", ".aider.chat.history.md",
     "fd54dbf3c078a3e62024a39bffecd9fd0895dddf"),
    ("DataCTE/scalable-comfyui-bot", "37b5720dab9a5ebb91e2202105b967af7da3cb25", ".aider.chat.history.md",
     "1d94972ff2f88eb1b29955d6526881619226d95f"),
    ("Draigan/vibrarian", "b0ee4b6ac6ef1f811a34801a033ed8671f410836", ".aider.chat.history.md",
     "84d74cc11b4ddf57b2cd429dba229bf9f6a56fef"),
    ("ExpressedAi/October", "8e6268d3d215d30e820230d17a75a4bb4c9a8351", ".aider.chat.history.md",
     "7a08982193f099d5ebe5cb977d7cd455182a07ae"),
    ("FXGUNIT/TradersApp", "baa7c8f62fc4f46947f9152413f25f52d3863c97", ".aider.chat.history.md",
     "b620b51b7ff868e3f68b72d1501b8471ed07e873"),
    ("Fiifimichaels/kts_final_bolt", "1206b79dc904fa6d125ea50f617e8db5df448c78", ".aider.chat.history.md",
     "b3cdb2730cce6878a2adc3f0fef0f2afdf8665a1"),
    ("GuillaumeBld/WTI_TRADING_BOT", "8b3ed67e7a655b76913d2e3e1a2e085b4b4c5365", "trash/.aider.chat.history.md",
     "fbb0c5ba0de93d06e487556e7d66def7ee431113"),
    ("HUSSAM205/Fezzy-AI-Bot", "d759dfe6333d78c063212001bc81dd5e50cc8629", ".aider.chat.history.md",
     "c6cbafa421a951f64f0fd75cca21e1e335c3ca6c"),
    ("HaneenAhmedMohy/financial_dashboard", "d92424ac26f316fe37e979ed80b18c1639c499bf", ".aider.chat.history.md",
     "2437d3c3033dfb1a2fe996acb7da5d2d8e7e792f"),
    ("James-Tipping/chess-app", "8d4a4332dd22688e08aa59d6d34a5fff05c58b50", ".aider.chat.history.md",
     "37705f89b66ad70ef0ac3196fc32deb36b2a9383"),
    ("MakanFar/research-agent", "236b8574c84d23bca1f5582ee998d2aa45cc18b6", ".aider.chat.history.md",
     "50a768b1026b68dd0c5c8ac7bea1fb7204406c04"),
    ("MrR3dpanda/price-watch-galaxy", "53bcb9df9d106439d020cfed939c651fe84050ce", ".aider.chat.history.md",
     "2c34160838474dc25dae8506283bcc076770614c"),
    ("My-Nutrition/Website", "c3164cf76617ee0c9fa15e28c2e41dd08e315e95", ".aider.chat.history.md",
     "2f903cc51d54d1e0928258d28cdcfadd9af125a3"),
    ("ProjectLiminality/AURYN-Prototype", "1d1e97318e8f3c1a75b6bd6a24bf166646a20343", ".aider.chat.history.md",
     "aa513d1ab292ac316f99c097b602e0e6cd4fffce"),
    ("Sprayer115/KLIMA", "d4b2a2334d36543c029afe2eae819d45efb5a689", ".aider.chat.history.md",
     "77425d0f8aa1f970f7b64fb0fb2ae7ba0d00a127"),
    ("Team3176/Code_2024", "f551d458bcc015975c73ceb1dab9da078cdfaf83", ".aider.chat.history.md",
     "953e2fee0f55391ef94fb85c8c210acb60aa35f2"),
    ("ZeyadMahfouzz/aiderAsgn", "2332689346ac292f0c58a6e5916da524b07cc178", "aider.chat.history.md",
     "d0633371f1fdd3b9266ada7961adacf3058d6fb0"),
    ("aliscie/odoc", "d6130e41a7c83bb38cacaa6b8f391916a98dc83d", ".aider.chat.history.md",
     "62110a2165970117eab551fcb3dc16352e08ccf4"),
    ("ashkanQDAS/promptstack", "221704adcf1ae2775e6f59c1ab86f04ab6e4d6ea", ".aider.chat.history.md",
     "693e69720348d2abeb02bd975b4ac1d9aa8f7aa4"),
    ("azimovu/ielts_essay_checker", "b88922f6337ccec6217cf08e88cced9f5109f4e2", ".aider.chat.history.md",
     "3d82f2ed047bce38430e67b2433d6cb83a4427d4"),
    ("bpawnzZ/open-webui-mod1", "15ab2e9782393ff4bf43c62ca04873b180c765ee", ".aider.chat.history.md",
     "4cf0bf11b2171b4d1d3e22519abafbdb90d7059b"),
    ("brezzy1337/Oriente-MX-Imports-Wholesale", "42f69d8ca796a5d33c6dc7646b559aede7cce91b", ".aider.chat.history.md",
     "1de913fbe7c4924c223c61036d83f03e557c2856"),
    ("brezzy1337/wiseqrpay", "95f14fd3f5e7b177110eaefdd7df45e961e6d3aa", ".aider.chat.history.md",
     "1c01c7319de088d0c11322dabc9acae36cc71d7f"),
    ("clusterpj/cluster-estate", "be3345ba97eaf1a0536f9f53bb83383e6df6ed6a", ".aider.chat.history.md",
     "9239b24a3c584d93033958f4180a67dde740c75d"),
    ("djha786543-gif/career-os-v2", "ace075e110cf3cf9cd90f5cb01e132548cdb695a", "backend/.aider.chat.history.md",
     "1eab7ca9b073f07792457a691a11dac1b6cc9072"),
    ("gtfierro/home.gtf.fyi", "cc3cf3a59ce22d003793810fc7cb2de04d04df5d", ".aider.chat.history.md",
     "9c8cd91f849c27c38396e297eccb04ff39125107"),
    ("guidov/whisper-simple-dictation", "1494a6d755dfe591a6a938a813f66e8404a6dc36", ".aider.chat.history.md",
     "1fa8d0c2d520d5d58cf216d5d531cd0036c09f63"),
)

# As backscroll/ingest/sources/aider.py reads a log: the session header, an Emacs mode line someone put on line 1,
# and Aider's own answer to a confirmation question logged as user input.
HEADER = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s*$")
MESSAGE_COMMAND = re.compile(r"^/(ask|code|architect|context|help)\s+", re.IGNORECASE)
CONFIRMATION = re.compile(r"\(Y\)es/\(N\)o(?:/\(A\)ll)?(?:/\(S\)kip all)?(?:/\(D\)on't ask again)?"
                          r" \[[^\]\n]*\]: ?\S*$")


def repo_dir(repo: str) -> str:
    return repo.replace("/", "__")


def sessions(data: bytes, directory: Path) -> list[dict[str, Any]]:
    """The sessions backscroll makes of one log: its own reader's split and ids (``directory`` absolute), with
    each session's inputs counted here, from the file."""
    from backscroll.ingest.sources import aider

    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    units = aider.parse(text, directory / FILE_NAME)
    starts = [int(unit.key.rsplit("#", 1)[1]) for unit in units]
    out = []
    for i, (unit, start) in enumerate(zip(units, starts, strict=True)):
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(lines)
        header = HEADER.match(lines[start - 1])
        when = f"{header.group(1)} {header.group(2)}" if header else None
        body = lines[start:end] if when else lines[start - 1:end]
        blocks: list[list[str]] = []  # each user input: its lines
        previous = ""
        for line in body:
            line = line.rstrip("\r")
            if line.startswith("#### ") or line == "####":
                if previous.startswith("####") and previous.endswith("  "):
                    blocks[-1].append(line[5:])
                else:
                    blocks.append([line[5:]])
            previous = line
        first: str | None = None
        inputs = messages = 0
        for block in blocks:
            typed = "\n".join(block).strip()
            if not typed or typed == "<blank>" or "\n" not in typed and CONFIRMATION.search(typed):
                continue
            inputs += 1
            said = MESSAGE_COMMAND.sub("", typed, count=1).strip()
            if said and (said != typed or not typed.startswith(("/", "!"))):
                messages += 1
                first = first or said.splitlines()[0].strip()[:200]
        out.append({"session_id": unit.session.session_id, "start": when, "line": start,
                    "first_user_line": first, "inputs": inputs, "messages": messages})
    return out


def build(out: Path, mirrors: Path, force: bool) -> dict[str, Any]:
    t0 = time.monotonic()
    out = out.absolute()
    manifest_path = out / "manifest.json"
    dirs = [out / repo_dir(repo) for repo, *_ in SOURCES]
    if manifest_path.exists() or any(d.exists() for d in dirs):
        if not force:
            raise CorpusError(f"{out} already holds a corpus (manifest.json or a repository directory): pass --force")
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
        manifest_path.unlink(missing_ok=True)
    blobs = {}
    for repo, commit, path, blob in SOURCES:
        mirror = Mirror(mirrors, repo)
        try:
            blobs[repo] = mirror.pinned(commit, path, blob)
        finally:
            mirror.close()
    manifest: list[dict[str, Any]] = []
    for repo, commit, path, blob in SOURCES:
        directory = out / repo_dir(repo)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / FILE_NAME).write_bytes(blobs[repo])
        manifest.append({"repo": repo, "commit": commit, "source_path": path, "blob": blob,
                         "dir": repo_dir(repo), "bytes": len(blobs[repo]),
                         "sessions": sessions(blobs[repo], directory)})
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return {"manifest": manifest, "seconds": time.monotonic() - t0, "out": out}


def print_summary(report: dict[str, Any]) -> None:
    manifest = report["manifest"]
    out: Path = report["out"]
    n_sessions = sum(len(m["sessions"]) for m in manifest)
    with_input = sum(1 for m in manifest for s in m["sessions"] if s["messages"])
    inputs = sum(s["messages"] for m in manifest for s in m["sessions"])
    size = sum(m["bytes"] for m in manifest)
    print(f"{len(manifest)} repositories, {n_sessions} sessions ({with_input} with user messages, {inputs} messages), "
          f"{size / 1e6:.1f} MB -> {out} (manifest: {out / 'manifest.json'}); {report['seconds']:.1f} s")
    for m in manifest:
        print(f"  {m['repo']:48s} {m['commit'][:10]} {m['bytes'] / 1e6:5.2f} MB {len(m['sessions']):4d} sessions")
    if out != CANONICAL_OUT:
        print(f"note: session ids depend on the directory; the frozen queries assume {CANONICAL_OUT}")


def main(argv: list[str] | None = None) -> int:
    ap = corpus_arguments(__doc__, f"output directory (always {CANONICAL_OUT} for the frozen queries)")
    args = ap.parse_args(argv)
    report = built("aider_corpus", lambda: build(args.out, args.mirrors, args.force))
    if report is None:
        return 2
    print_summary(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
