"""Where a push to one team archive stands, kept in the store's meta per archive and member: the last record sent,
the last redaction revision and embedding pass it caught up with, the last record a re-read took out that the
archive was rid of, and the machine's name; and how an archive is told apart (its id and its database)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from backscroll.store.archive_schema import ROWS_VERSION
from backscroll.store.db import Store
from backscroll.store.outbox import LAST_PUSH


def archive_key(identity: str, member: str) -> str:
    """What a push's mark is kept under: the archive's own id (``archive init`` gives it one, so a database
    made anew under the same name is pushed to whole), the member, and the rows' version (an archive migrated
    to a version whose rows carry more is pushed to whole again)."""
    return hashlib.sha1(f"{identity}|{member}|{ROWS_VERSION}".encode()).hexdigest()[:16]


_KINDS = ("pushed", "revised", "vectored", "departed")  # a push's marks, in ``Marks``' order


@dataclass(frozen=True)
class Marks:
    """Where a push to one archive stands: the last record id sent, the last redaction revision sent again, the
    last embedding pass whose records the archive was asked about (the vectors it lacked were sent), and the last
    record a re-read took out of the store that the archive was rid of."""

    ident: str
    pushed: int
    revised: int
    vectored: int
    departed: int

    @classmethod
    def read(cls, store: Store, ident: str) -> Marks:
        return cls(ident, *(int(store.get_meta(f"archive_{k}:{ident}") or 0) for k in _KINDS))

    @classmethod
    def of(cls, store: Store, identity: str, member: str, dry_run: bool = False) -> Marks:
        """The marks of a push to the archive ``identity`` names; those an older backscroll kept under the archive's
        id alone (before a copy of it was told apart by its database) are taken over once (and forgotten there, so
        that a later copy of the archive is pushed to whole), with the machine's name its last push used: the first
        push after an upgrade sends nothing again and keeps its machine. A dry run takes them over without writing."""
        marks = cls.read(store, archive_key(identity, member))
        earlier = archive_key(identity.rpartition("@")[0], member)
        if marks.pushed or "@" not in identity or store.get_meta(f"archive_pushed:{earlier}") is None:
            return marks
        values = {k: store.get_meta(f"archive_{k}:{earlier}") or "0" for k in _KINDS}
        if dry_run:
            return cls(marks.ident, *(int(v) for v in values.values()))
        last = json.loads(store.get_meta(LAST_PUSH) or "null")
        machine = store.get_meta(f"archive_machine:{earlier}") or (
            last.get("machine") if isinstance(last, dict) and last.get("key") == earlier else None)
        for k, value in values.items():
            store.set_meta(marks.key(k), value)
            store.set_meta(f"archive_{k}:{earlier}", None)
        if isinstance(machine, str) and machine:
            store.set_meta(marks.key("machine"), machine)
        if isinstance(last, dict) and last.get("key") == earlier:  # (status reads the marks its last push names)
            store.set_meta(LAST_PUSH, json.dumps({**last, "key": marks.ident}))
        return cls.read(store, marks.ident)

    def key(self, which: str) -> str:
        return f"archive_{which}:{self.ident}"

    def pending(self, store: Store) -> int:
        """Records to send: new ones, and sent ones redacted again since."""
        return store.outbox_count(self.pushed) + store.revised_count(self.revised, self.pushed)
