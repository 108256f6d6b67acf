"""``backscroll archive init``: set up (or migrate) a team archive on a PostgreSQL database."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common


def init(
    url: Annotated[str, typer.Argument(metavar="URL", show_default=False,
                                       help="The database, as its owner: postgresql://OWNER@HOST/DB.")],
    member: Annotated[list[str] | None, typer.Option("--member", metavar="ROLE", show_default=False,
                                                     help="Make ROLE a member (a login role that may push; "
                                                          "repeatable). Set its password with ALTER ROLE.")] = None,
    no_pgvector: Annotated[bool, typer.Option("--no-pgvector", help="Keep vectors as real[] (an exact scan) even "
                                                                    "where the vector extension exists.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
) -> None:
    """Create or migrate the archive's schema, its member role and row-level security. Safe to run again.

    Every member (the backscroll_member role) reads every row, and inserts, changes or deletes only their own.

    The statements are in backscroll/store/archive_schema.py, for an administrator to read first.
    """

    def body() -> int:
        from backscroll.errors import UsageError
        from backscroll.sanitize import shorten
        from backscroll.store.archive_pg import Archive, where

        for name in member or []:  # (PostgreSQL's role names: 1 to 63 bytes, no NUL)
            if not name or "\x00" in name or len(name.encode()) > 63:
                raise UsageError(f"{shorten(name, 80)!r} cannot be a member: a role's name is 1 to 63 bytes",
                                 hint="--member alice (the database role the member logs in as)")
        with Archive.connect(url) as archive:
            version, vector = archive.init(member or [], pgvector=not no_pgvector)
        if as_json:
            common.emit_json({"archive": where(url), "archive_schema": version, "pgvector": vector,
                              "members": member or [], "notes": archive.notes})
        else:
            for note in archive.notes:
                common.err(f"note: {note}")
            common.err(f"the archive at {where(url)} is at schema version {version}"
                       + ("" if vector else " (no pgvector: meaning will be searched by an exact scan)")
                       + (f"; granted to {', '.join(member)} (members granted before keep their access)"
                          if member else ""))
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Set up the team archive (PostgreSQL) that `backscroll push` sends to.",
                        no_args_is_help=True)
    group.command("init")(init)
    app.add_typer(group, name="archive")
