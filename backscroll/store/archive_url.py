"""What a message may say of a team archive's URL: where it points (user, host, port, database), never its
password, and what the server or libpq said about it with any part of the URL that could hold the password
taken out. URLs are read by libpq's own parser (``psycopg.conninfo``); one it cannot read is refused without
being quoted (libpq's own message quotes the token it stopped at: a password, as often as not)."""

from __future__ import annotations

import re

from backscroll.errors import UsageError

_SCHEME = re.compile(r"^postgres(?:ql)?://", re.IGNORECASE)


def _parsed(url: str) -> dict | None:
    from psycopg import ProgrammingError, conninfo

    try:
        return conninfo.conninfo_to_dict(url)
    except ProgrammingError:
        return None


def _unknown_parameter(url: str) -> str | None:
    """The query parameter libpq does not know that a URL names (``?bogus=1``), when that is why it cannot be read:
    shown only when the query holds no ``@`` (else its ``?`` may be a password's, cut in two)."""
    from psycopg import ProgrammingError, conninfo

    query = url.split("?", 1)[1] if _SCHEME.match(url) and "?" in url else ""
    if not query or "@" in query:
        return None
    try:
        conninfo.conninfo_to_dict(url)
    except ProgrammingError as exc:
        named = re.match(r'invalid URI query parameter: "([A-Za-z_]{1,40})"', str(exc))
        return named.group(1) if named and f"{named.group(1)}=" in query else None
    return None


def _userinfo(url: str) -> str | None:
    """What a URL holds before its host (``user:password``), or None."""
    if not _SCHEME.match(url):
        return None
    rest = _SCHEME.sub("", url, count=1).split("/", 1)[0]
    return rest.rsplit("@", 1)[0] if "@" in rest else None


def check(url: str) -> None:
    """Refuse a URL libpq would misread or cannot read, naming the fix, never quoting the URL."""
    if "://" in url and not _SCHEME.match(url):
        raise UsageError("the archive is a PostgreSQL database: its URL starts with postgresql://",
                         hint="e.g. postgresql://alice@db.example.com/team")
    if "://" not in url and "=" not in url:
        raise UsageError("an archive is named by a PostgreSQL URL, or by `default` for the one configured here",
                         hint="e.g. default, or postgresql://alice@db.example.com/team")
    userinfo = _userinfo(url)
    if userinfo is not None and "@" in userinfo:
        raise UsageError("the archive URL has an '@' in its user name or password, which PostgreSQL reads as the "
                         "start of the host; the URL is not shown, as it may hold a password",
                         hint="write an '@' in a user name or password as %40")
    if (parameter := _unknown_parameter(url)) is not None:
        raise UsageError(f"the archive URL names a parameter PostgreSQL does not know: {parameter!r}",
                         hint="libpq's own are host, port, dbname, user, sslmode, connect_timeout, …: drop it or "
                              "spell it as libpq does")
    if _parsed(url) is None:
        raise UsageError("the archive URL could not be read as a PostgreSQL URL or connection string; it is not "
                         "shown, as it may hold a password",
                         hint="percent-encode special characters of a URL's password (% as %25, a space as %20), or "
                              "quote a connection string's value that holds a space (password='…'); better, keep "
                              "the password in ~/.pgpass or $PGPASSWORD")


def where(url: str) -> str:
    """``user@host:port/db`` of a connection URL, for messages: never its password."""
    info = _parsed(url)
    if info is None or "@" in (_userinfo(url) or ""):
        return "the archive URL given (not shown: it could not be read, and may hold a password)"
    host = str(info.get("host") or "local socket")
    return f"{info.get('user') or 'you'}@{host}{':' + str(info['port']) if info.get('port') else ''}/" \
           f"{info.get('dbname') or ''}"


def advice(exc: Exception) -> str | None:
    """What to do about an error the server or libpq gave, by its SQLSTATE or libpq's words (a failed connection
    carries no SQLSTATE), or None."""
    state = getattr(exc, "sqlstate", None) or ""
    text = str(exc)
    if state == "28P01" or "password authentication failed" in text:
        return ("the password is read from $PGPASSWORD or ~/.pgpass (host:port:db:user:password, mode 0600), or "
                "from the URL when it holds one: check the one for this user")
    if "no password supplied" in text or "fe_sendauth" in text:
        return "put the password in ~/.pgpass (host:port:db:user:password, mode 0600) or $PGPASSWORD"
    if state == "28000" or "pg_hba.conf" in text:
        return "the server's pg_hba.conf does not let this user in from here: ask its administrator"
    if state == "3D000" or re.search(r'database "[^"]*" does not exist', text):
        return "check the database name at the end of the URL"
    if re.search(r'role "[^"]*" does not exist', text):
        return "the archive's owner makes a member with `backscroll archive init URL --member NAME`"
    if "permission denied for database" in text:
        return ("this role is no member of this archive: its owner runs `backscroll archive init URL --member NAME` "
                "for it")
    if re.search(r"permission denied to (create|grant) role|must have admin option on role", text):
        return ("making a member (a new role, or one let into the group) takes CREATEROLE, and since PostgreSQL 16 "
                "the ADMIN option on backscroll_member: run `archive init URL --member NAME` as a role that has them, "
                "or as a superuser")
    if state == "42501" or "permission denied" in text:
        return ("`archive init` runs as the database's owner; a member reads and pushes once the owner ran "
                "`backscroll archive init URL --member NAME` for them")
    if "Connection refused" in text or "timeout expired" in text or "could not translate host" in text:
        return "check the host and port, and that the server is running and reachable from here"
    if "No such file or directory" in text and "socket" in text:  # (no host: libpq's local socket)
        return ("no server listens on this machine's socket: name the server's host in the URL "
                "(postgresql://USER@HOST/DB), or start it")
    return None


def for_command(given: str) -> str:
    """The ``--archive`` a printed follow-up command repeats, quoted for a shell: ``default`` as it is, a URL
    without a password as given, else where it points without the password (it then comes from ~/.pgpass or
    $PGPASSWORD, as it should)."""
    import shlex

    info = _parsed(given)
    if given == "default" or info is None or not (info.get("password") or ":" in (_userinfo(given) or "")):
        return shlex.quote(given) if info is not None or given == "default" else "URL"
    from psycopg import conninfo

    return shlex.quote(conninfo.make_conninfo(**{k: v for k, v in info.items() if k != "password"}))


def said(exc: Exception, url: str) -> str:
    """The first line of what libpq or the server said, without any part of ``url`` that could be a password."""
    text = (str(exc).strip().splitlines() or ["error"])[0][:300]
    userinfo = _userinfo(url) or ""
    secrets = {url, userinfo if ":" in userinfo else "", str((_parsed(url) or {}).get("password") or "")}
    secrets |= set(re.findall(r"password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", url, flags=re.IGNORECASE))
    for secret in sorted((s for s in secrets if len(s) >= 2), key=len, reverse=True):
        text = text.replace(secret, "[hidden]")
    return text
