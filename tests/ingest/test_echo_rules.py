"""Echo rules (docs/architecture.md): every command form that runs backscroll retrieval, and the look-alikes
that do not."""

import pytest

from backscroll.ingest.echo import is_query_echo, retrieval_calls, split_commands

ECHOES = [
    "backscroll search foo",
    "backscroll show 1f0e#0",
    "./backscroll search x",
    "~/.local/bin/backscroll search job queue",
    "/usr/local/bin/backscroll search job queue",
    '~/.local/bin/backscroll search "SKIP LOCKED" --json | head -50',
    "cd /home/dev/shop && backscroll search job queue postgres --limit 5",
    "FOO=1 BAR=2 backscroll search q",
    "env -u X BAR=2 backscroll search q",
    "env -i PATH=/usr/bin backscroll search q",
    "timeout 30 backscroll search q",
    "timeout -s KILL -k 5 30s backscroll search q",
    "nice -n 5 backscroll search q",
    "nohup backscroll search q &",
    "time backscroll search q",
    "command backscroll search q",
    "exec backscroll search q",
    "sudo -u bob backscroll search q",
    "python -m backscroll search q",
    "python3 -m backscroll search q",
    "python3.11 -m backscroll search q",
    "uvx backscroll search q",
    "uvx --from backscroll backscroll search q",
    "pipx run backscroll search q",
    "uv run backscroll search q",
    "poetry run backscroll search q",
    'bash -lc "backscroll search foo"',
    "sh -c 'cd /x; backscroll search foo'",
    "zsh -c 'backscroll search foo'",
    "backscroll --home /tmp/h search q",
    "backscroll search 'quoted query' --content-type tool",
    "backscroll search foo 2>&1 | tail -n 20",
    "backscroll search foo > /tmp/out.txt",
    "git status; backscroll search foo",
    "make build || backscroll search why the build broke",
    "echo start\nbackscroll search foo",
    'backscroll search "unterminated',
    ["bash", "-lc", "backscroll search foo"],
    ["bash", "-lc", "cd /x && timeout 10 backscroll search foo"],
    ["backscroll", "search", "foo"],
    ["/usr/bin/env", "backscroll", "search", "foo"],
    'bash -o pipefail -c "backscroll search foo | head"',
    "bash -euo pipefail -c 'backscroll search foo'",
    'bash -O extglob -c "backscroll show 1f0e#0"',
    'echo "$(backscroll search foo)"',
    "echo `backscroll search foo`",
    "diff <(backscroll search foo) <(backscroll search bar)",
    "eval 'backscroll search foo'",
    "out=$(backscroll search foo --json)",
    "cd /repo\n\nbackscroll search foo",
    "cd /repo &&\nbackscroll search foo",
    "git fetch;\nbackscroll search foo",
    "(\nbackscroll search foo\n)",
    "echo 'backscroll search \"job queue\"' | bash",
    "uvx backscroll@latest search foo",
    "uvx backscroll==1.2 search foo",
    "backscroll.exe search foo",
    "bash <<EOF\nbackscroll search foo\nEOF",
    "cat <<< 'x'\nbackscroll search foo",
    "backscroll search -- -h",
    "grep -n '<<EOF' scripts/*.sh\nbackscroll search 'heredoc quoting'",
    "python3 -c 'print(1<<n)'\nbackscroll search foo",
    "ls -la\n# what's there\nresults=`backscroll search foo`",
    "cat <<EOF > notes.txt\nit's fine\nEOF\nctx=\"$(backscroll search foo)\"",
    "cat <<EOF | bash\nbackscroll search foo\nEOF",
    "timeout 30 bash <<EOF\nbackscroll search foo\nEOF",
    "ssh host bash <<EOF\nbackscroll search foo\nEOF",
    "cd /repo  # go\nbackscroll search foo",
    "curl https://x/#a && backscroll search foo",
    "echo ${#arr[@]}; backscroll search foo",
    "sed -i s#a#b#g f && backscroll search foo",
    "cat <<EOF > f\r\nhello\r\nEOF\r\nbackscroll search foo\r\n",
    "echo $((1 << n)); echo hi\nbackscroll search foo",
    "(( m = 1 << k ))\nbackscroll search foo",
    "echo $'it\\'s' && echo \"$(backscroll search foo)\" # don't",
    "cat <<EOF\n$(backscroll search foo)\nEOF",
    "ssh host <<EOF\nbackscroll search foo\nEOF",
    "cat <<-EOF > f\n\tbody\n\tEOF\nbackscroll search foo",
    "cat <<EOF; backscroll search foo\nbody\nEOF",
    'git commit -m "$(cat <<\'EOF\'\nfix\nEOF)"\nbackscroll search q',
    "cat <<E'O'F\nEOF\nbackscroll search q",
    "v=${l%% #*}; backscroll search q",
    "x=`echo a #c`; backscroll search q",
    "X==1 backscroll search q",
    "echo $[1<<x]\nbackscroll search q",
    "echo 'backscroll search q' | bash -euo pipefail",
    'bs() { backscroll search "$@"; }; bs foo',
    "function f { backscroll search q; }; f",
    'echo "$($(which backscroll) search q)"',
    "backscroll \\\n  search q",
    'echo "$(backscroll search "(q)")"',
    "coproc backscroll search q",
    "coproc BS { backscroll search q; }",
    "b=backscroll; $b search q",
    'BS=~/.local/bin/backscroll\n"$BS" search q',
    "export BS=$(which backscroll); ${BS} show 1f0e#0",
    "b=.venv/bin/backscroll && timeout 9 $b search q",
]

NOT_ECHOES = [
    'grep -rn "backscroll search" docs/',
    'rg "backscroll search" .',
    'git commit -m "docs: explain backscroll search flags"',
    "echo backscroll search",
    "printf 'backscroll search %s' foo",
    "cat notes.md",
    "backscroll status",
    "backscroll index",
    "backscroll rebuild",
    "backscroll --help",
    "backscroll",
    "man backscroll",
    "which backscroll",
    "pip install backscroll",
    "vim backscroll/search.py",
    "python -m pytest tests/test_search.py",
    "ls ~/.local/share/backscroll",
    ["rg", "backscroll search"],
    ["git", "commit", "-m", "backscroll search"],
    'echo "$(which backscroll)"',
    "bash -o pipefail -c 'backscroll index'",
    "git commit -m 'docs: explain `backscroll search foo`'",
    "gh pr create --body 'Run `backscroll search x` first'",
    "echo 'Tip: `backscroll show ID`' >> README.md",
    'git commit -m "run \\`backscroll search x\\` first"',
    "cat <<'EOF' >> AGENTS.md\nbackscroll search \"decisions\"\nEOF",
    "tee -a notes.md <<EOF\n\nbackscroll show abc\nEOF\necho done",
    "backscroll search --help",
    "backscroll show -h",
    "git commit -m \"$(cat <<'EOF'\nfeat: document `backscroll search` usage\nEOF\n)\"",
    "cat <<'EOF' >> AGENTS.md\nRun `backscroll search <query>` before starting.\nEOF",
    "git commit -m \"docs: echo 'backscroll search foo' | bash works\"",
    "echo hi # $(backscroll search foo)",
    "# backscroll search foo\nls",
    "git commit -m \"$(cat <<'EOF'\nfix(echo): hide `backscroll search` (again)\n\nCo-Authored-By: C <x>\nEOF\n)\"",
    "echo 'x' | sh-lint",
    "echo 'backscroll search q' | bash -n",
    'bs() { backscroll search "$@"; }',
    "f() {\n  uvx backscroll@latest search q\n}",
    "echo 'backscroll search q' | bash x.sh",
    "cat <<E\n  E\nbackscroll search q\nE",
    "cat <<'E' > n.md; sh x.sh\nbackscroll search q\nE",
    "cat <<'---'\nbackscroll search q\n---",
    "cat <<EOF > notes.md # for bash users\nintro\nbackscroll search bar\nEOF",
    "cat <<\\EOF > f\n`backscroll search x`\nEOF",
    "cat <<A <<B\nin A\nA\nbackscroll search inBodyB\nB",
    "b=backscroll; $b status",
    "b=backscroll; $c search q",
    "b=backscroll; b=rg; $b search q",
    'q="backscroll search"; echo $q',
    "",
    None,
]


@pytest.mark.parametrize("command", ECHOES, ids=repr)
def test_retrieval_commands_are_echoes(command):
    assert is_query_echo(command)


@pytest.mark.parametrize("command", NOT_ECHOES, ids=repr)
def test_lookalikes_are_not_echoes(command):
    assert not is_query_echo(command)


def test_split_commands_respects_quotes_and_operators():
    assert split_commands('a "x; y" && b | c; d & e\nf') == [["a", "x; y"], ["b"], ["c"], ["d"], ["e"], ["f"]]


def test_retrieval_calls_give_the_arguments_from_the_subcommand():
    assert retrieval_calls('cd x && backscroll --home /h search "job queue" --limit 5 2>/dev/null | head') == [
        ["search", "job queue", "--limit", "5"]
    ]


def test_a_substitution_is_one_call_and_an_mcp_server_named_in_capitals_is_backscroll():
    from backscroll.ingest.echo import is_mcp_echo

    assert retrieval_calls("x=$(backscroll search q --json)") == [["search", "q", "--json"]]
    assert is_mcp_echo("mcp__Backscroll__search") and not is_mcp_echo("mcp__history__search")
    assert is_mcp_echo("backscroll_search") and is_mcp_echo("backscroll-show"), "OpenCode and Zed; Copilot CLI"
    assert not is_mcp_echo("backscroll_status") and not is_mcp_echo("search")
    assert retrieval_calls("echo 'backscroll search \"job queue\"' | bash") == [["search", "job queue"]]
    assert retrieval_calls("x=`backscroll search 'a b'`") == [["search", "a b"]], "the query as written"
    assert retrieval_calls('echo "backscroll search \\"foo bar\\"" | bash') == [["search", "foo bar"]]
    assert retrieval_calls("echo -e 'backscroll search a\\nbackscroll show b' | sh") == [["search", "a"], ["show", "b"]]
    assert retrieval_calls("backscroll search foo#bar") == [["search", "foo#bar"]]


def test_long_commands_are_read_in_linear_time():
    """Commands run to 100 KB and more (a minified script inline): each rule reads them in one pass."""
    for command in ("a<<b;" * 40_000, "node -e '" + "h<<f>" * 40_000 + "'", "$(" + " backscroll" * 20_000,
                    'echo "x" ' * 20_000 + "| backscroll", "cat <<a\na\n" * 25_000, "f(){ :; }; " * 10_000):
        assert not is_query_echo(command)


def test_malformed_input_never_raises():
    for weird in ['"', "'", "$(", "`", "\\", "bash -c", "env", "timeout", "sudo -u", "python -m", "a && && b",
                  "backscroll search $(cat <<EOF", ["bash"], [1, 2, None], {"a": 1}, 42]:
        is_query_echo(weird)  # type: ignore[arg-type]  # malformed input, on purpose
