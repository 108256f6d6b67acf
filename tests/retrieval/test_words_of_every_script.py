"""Words are found where a session says them in any script: Chinese and Japanese, written without spaces, by their
characters; a word with an accent however its letters were encoded. An index an earlier version wrote is rebuilt,
and read as it is where it may not be rebuilt now. Real stores, the fake embedder."""

import unicodedata

import pytest
from helpers import index_written_by, run_cli
from team_archives import fresh_archive

from backscroll.archive import Backscroll
from backscroll.config import resolve
from backscroll.indexes.lexical import LexicalIndex
from backscroll.indexes.lexical_schema import LEXICAL_SCHEMA, analyze
from backscroll.store.lock import writer_lock

DECIDED = "我们决定把数据库迁移放到部署之后，因为迁移时锁表太久。"
JAPANESE = "データベースの移行が失敗しました。ロールバックします。"
DECOMPOSED = unicodedata.normalize("NFD", "Die Migration der École-Datenbank ist fertig.")


def test_the_index_reads_a_word_of_each_script():
    assert analyze("数据库迁移") == ["数", "据", "库", "迁", "移"]  # a Han character is a word
    assert analyze(JAPANESE)[:4] == ["データベース", "の", "移", "行"]  # a run of katakana, of hiragana, is one
    assert analyze("再起動後にnginxが落ちた")[4:7] == ["に", "nginx", "が"], "a word in Latin letters between kana"
    assert analyze("데이터베이스 마이그레이션") == ["데이터베이스", "마이그레이션"]  # Korean puts spaces between words
    assert analyze(unicodedata.normalize("NFD", "école")) == analyze("école") == ["école"]
    assert analyze("fix_the DB-migration v2.3, naïve ½") == ["fix", "the", "db", "migration", "v2", "3", "naïve",
                                                              "½"], "the words of any other text are as they were"


@pytest.fixture
def history(session_builder, backscroll_index):
    s = session_builder.claude(project="api")
    s.user("上次讨论的结果是什么？")
    s.assistant(DECIDED)
    s.user("what failed in staging?")
    s.assistant(JAPANESE)
    s.user("and the school database?")
    s.assistant(DECOMPOSED)
    s.user("unrelated: the checkout endpoint is slow")
    s.assistant("The cart is serialized twice on every request.")
    backscroll_index(embed=False)
    return s


@pytest.mark.parametrize("query, text", [
    ("数据库迁移", DECIDED),  # a word inside a sentence of characters
    ("锁表", DECIDED),
    ("移行", JAPANESE),
    ("ロールバック", JAPANESE),
    ("école", DECOMPOSED),  # typed composed, stored decomposed
    (unicodedata.normalize("NFD", "École-Datenbank"), DECOMPOSED),
])
def test_a_word_is_found_inside_the_text_that_says_it(history, backscroll_search, query, text):
    result = backscroll_search(query, mode="lexical", weak=True)
    hits = [*result.results, *result.weak_matches]
    assert hits and hits[0].text == text, [h.text for h in hits]


def test_the_characters_asked_for_are_highlighted_where_they_stand(history, backscroll_search):
    result = backscroll_search("数据库迁移", mode="lexical", weak=True)
    first = [*result.results, *result.weak_matches][0]
    shown = {first.snippet[a:b] for a, b in first.highlights}
    assert {"数", "据", "库", "迁", "移"} <= shown and "数据库迁移放到部署之后" not in shown


def test_a_run_of_kana_is_no_typo_of_another(history, backscroll_search):
    result = backscroll_search("ロールバックしました", mode="lexical", weak=True)
    assert not any("did you mean" in n or "searched as" in n for n in result.notes), result.notes


def test_the_team_archive_finds_them_as_the_local_store_does(history, backscroll_home, pg_url):
    """Pushed before this version, a record's words in the archive are the old ones: the store's upgrade marks the
    records whose words change, and the next push sends them again."""
    import sqlite3

    import psycopg

    from backscroll.store import schema

    url = fresh_archive(pg_url, "every_script", "postgres")
    with Backscroll(config=backscroll_home.config()) as bs:
        bs.push(url)
    with psycopg.connect(url, autocommit=True) as conn:  # (as an earlier version pushed them: a sentence one word)
        assert conn.execute("UPDATE backscroll.records SET words = lower(text) WHERE text !~ '^[ -~]*$'").rowcount == 4
    db = sqlite3.connect(backscroll_home.data / "backscroll.db")  # (the store as the earlier version left it)
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm017_words_of_every_script'")
    db.execute(f"PRAGMA user_version = {schema.schema_version() - 1}")
    db.execute("UPDATE records SET revised = NULL")
    db.commit()
    db.close()
    with Backscroll(config=backscroll_home.config()) as bs:
        assert not bs.search("锁表", mode="lexical", weak=True, archive=url).weak_matches, "the old words"
        assert bs.push(url).pushed == 4, "the records whose words change, and no other"
        for query in ("数据库迁移", "移行", "école"):
            local = bs.search(query, mode="lexical", weak=True)
            remote = bs.search(query, mode="lexical", weak=True, archive=url)
            assert ([h.record_id for h in (*remote.results, *remote.weak_matches)]
                    == [h.record_id for h in (*local.results, *local.weak_matches)] != []), query


def test_an_index_an_earlier_version_wrote_is_named_so_and_rebuilt(history, backscroll_home):
    """After an upgrade that reads words otherwise, the index in use is no damage: status says so, and the next
    search rebuilds it and finds what the old one could not."""
    index_written_by(backscroll_home)
    status = run_cli(backscroll_home, "status")
    assert "lexical index: made by an earlier version (a search" in status.stdout and "unreadable" not in status.stdout
    check = run_cli(backscroll_home, "status", "--check")
    assert check.returncode == 0 and "made by an earlier version" in check.stdout, check.stdout
    found = run_cli(backscroll_home, "search", "锁表", "--mode", "lexical", "--weak", "--json")
    assert "the lexical index was made by an earlier version; rebuilding it" in found.stderr, found.stderr
    assert DECIDED in found.stdout
    assert "in step with the store" in run_cli(backscroll_home, "status").stdout


def test_where_it_may_not_be_rebuilt_now_it_is_read_as_it_is(history, backscroll_home):
    """Another process writing (an `index` run), or a recall hook, which never rebuilds: the index an earlier version
    wrote answers as it is, and says so, rather than nothing; the first process free to rebuild it does."""
    index_written_by(backscroll_home)
    lex = LexicalIndex(backscroll_home.data / "index")
    assert not lex.open_for_read() and lex.open_for_read(older=True) and lex.stale
    with writer_lock(resolve(home=backscroll_home.data)) as held:
        assert held
        found = run_cli(backscroll_home, "search", "checkout endpoint", "--mode", "lexical", "--weak", "--json")
        assert found.returncode == 0 and "checkout endpoint is slow" in found.stdout, found.stderr
        assert "made by an earlier version: answering from it as it is" in found.stderr, found.stderr
    rebuilt = run_cli(backscroll_home, "search", "锁表", "--mode", "lexical", "--weak", "--json")
    assert "rebuilding it from the store" in rebuilt.stderr and DECIDED in rebuilt.stdout
    assert LexicalIndex(backscroll_home.data / "index").open_for_read()


def test_only_an_earlier_index_of_todays_fields_is_read_as_it_is(history, backscroll_home):
    """One of a newer version is never taken for an earlier one; one far older (other fields) is named older, but
    rebuilt before it is read."""
    lex = LexicalIndex(backscroll_home.data / "index")
    index_written_by(backscroll_home, LEXICAL_SCHEMA + 1)
    assert not lex.older() and not lex.open_for_read(older=True)
    index_written_by(backscroll_home, 3)
    assert lex.older() and not lex.open_for_read(older=True)
    assert "made by an earlier version (a search" in run_cli(backscroll_home, "status").stdout


def test_a_decomposed_accent_is_highlighted_where_it_was_found():
    from backscroll.retrieval.snippet import make_snippet

    snippet, spans = make_snippet(DECOMPOSED, ("école",))
    assert [snippet[a:b] for a, b in spans] == ["École"]
