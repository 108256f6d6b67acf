"""``Backscroll``'s reading calls: a record or a session (``show``), the list of sessions and its count, and
``status``. Mixed into ``archive.Backscroll``, which holds the store they read."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from backscroll.guard import guarded
from backscroll.types import Notify, SessionSummary, SessionView, quiet

if TYPE_CHECKING:
    from backscroll.config import Config
    from backscroll.integrations.resume import Resumption
    from backscroll.request import ListRequest
    from backscroll.status_types import StatusReport
    from backscroll.store.db import Store
    from backscroll.touches import FileTouches


class Reads:
    config: Config

    def _records(self, sync: bool, notify: Notify) -> Any:
        raise NotImplementedError

    def _release(self, store: Any) -> None:
        raise NotImplementedError

    @guarded
    def show(self, ident: str, *, context: int = 3, limit: int | None = None, offset: int = 0, sync: bool = False,
             max_chars: int = 0, archive: str | None = None, member: str | None = None,
             notify: Notify = quiet) -> SessionView:
        """A record with ``context`` records either side, or (a session id or a prefix) a page of a session;
        ``max_chars`` cuts each record's text (0: whole); ``archive``: from the team archive (``member``: whose,
        when two members pushed the same session)."""
        from backscroll import browse, session_ids
        from backscroll.request import ShowRequest, check_fields

        session_ids.check_id(ident)
        check_fields(ShowRequest(ident, context, limit, offset, max_chars, archive, member))
        if member is not None and archive is None:
            from backscroll.errors import UsageError

            raise UsageError("member names whose record it is in a team archive", hint="give the archive too",
                             reason="member-without-archive")
        if archive is not None:
            from backscroll.team import browse as team

            return team.show(self.config, archive, ident, context=context, limit=limit, offset=offset,
                             max_chars=max_chars, member=member, notify=notify)
        store = self._records(sync, notify)
        try:
            return browse.show(store, ident, context=context, limit=limit, offset=offset, max_chars=max_chars)
        finally:
            self._release(store)

    @guarded
    def files(self, path: str, *, agent: str | None = None, project: str | None = None, since: str | None = None,
              until: str | None = None, limit: int = 20, offset: int = 0, sync: bool = False,
              notify: Notify = quiet) -> list[FileTouches]:
        """The sessions whose tool calls read, edited, wrote or ran a command on ``path``, the latest touched first
        (absolute: that file; relative: any path ending with it, in any project)."""
        from backscroll import browse
        from backscroll.errors import MAX_PATH, UsageError
        from backscroll.request import ListRequest

        if not isinstance(path, str) or not path.strip() or len(path) > MAX_PATH:
            raise UsageError(f"files needs a path (as text, of at most {MAX_PATH:,} characters)",
                             hint="e.g. backscroll files src/app/models.py")
        request = _listing(ListRequest(agent=agent, project=project, since=since, until=until, limit=limit,
                                       offset=offset))
        agent, since, until = request.agent, request.since, request.until
        store = self._records(sync, notify)
        try:
            project = browse.resolve_project(store, project) if project else None
            if agent:
                browse.check_agent_indexed(store, agent)
            return browse.file_sessions(store, path.strip(), agent=agent, project=project, since=since, until=until,
                                        limit=limit, offset=offset)
        finally:
            self._release(store)

    @guarded
    def stats(self, *, since: str | None = None, until: str | None = None, sync: bool = False,
              notify: Notify = quiet) -> dict[str, list[tuple[str | None, int, int]]]:
        """``{"agent" | "project" | "month": [(name, sessions, records), ...]}`` of the records from ``since`` up
        to ``until``, most records first (months: newest first); query echoes left out."""
        from backscroll.request import ListRequest

        request = _listing(ListRequest(since=since, until=until))
        store = self._records(sync, notify)
        try:
            return {by: store.activity(by, request.since, request.until) for by in ("agent", "project", "month")}
        finally:
            self._release(store)

    @guarded
    def resume(self, ident: str, *, sync: bool = False, notify: Notify = quiet) -> Resumption:
        """How to go back into the session of a hit or a session id (or a prefix): the agent's own command and
        the directory to run it in (``integrations/resume.py``)."""
        from backscroll import browse
        from backscroll.integrations.resume import resumption

        store = self._records(sync, notify)
        try:
            from backscroll.ingest.discover import file_gone

            session = browse.resumable(store, ident)
            self._note_resumed(store, session.get("source_path"))
            gone = bool(session.get("source_path")) and file_gone(session["source_path"])
            return resumption({**session, "log_gone": gone})
        finally:
            self._release(store)

    def _note_resumed(self, store: Store, path: str | None) -> None:
        """The file of a session gone back into is looked at by every search's sync for a day: its agent writes
        it again, and an old file is otherwise looked at only in turn (``ingest.quick``). Skipped, never waited
        for, when the store cannot be written at once: it is record-keeping, not the answer."""
        import time

        from backscroll.store.lock import writer_lock

        if path is None or store.readonly:
            return
        with writer_lock(self.config, 0.0) as acquired:
            if not acquired:
                return
            store.sound = store.sound or store.vouched()  # (vouched for again when it is closed)
            store.note_resumed(path, time.time_ns())

    @guarded
    def sessions(self, *, agent: str | None = None, project: str | None = None, since: str | None = None,
                 until: str | None = None, limit: int = 20, offset: int = 0, sync: bool = False,
                 archive: str | None = None, member: str | None = None, grep: str | None = None, all: bool = False,
                 notify: Notify = quiet) -> list[SessionSummary]:
        """Sessions, newest first, with a title and record, echo and subagent counts; ``archive``: the team
        archive's (``member``: one member's); ``grep``: whose title or first prompt holds these words; ``all``:
        also sessions of fewer than two records, and subagents on their own lines."""
        from backscroll import browse
        from backscroll.request import ListRequest

        everything = all
        request = _listing(ListRequest(agent=agent, project=project, since=since, until=until, limit=limit,
                                       offset=offset, archive=archive, member=member, grep=grep, all=everything))
        agent, since, until = request.agent, request.since, request.until
        if archive is not None:
            from backscroll.team import browse as team
            from backscroll.types import Filters

            return team.sessions(self.config, archive, Filters(agent=agent, project=project, since=since,
                                                               until=until), member, limit, offset, grep=grep,
                                 everything=everything)[0]
        store = self._records(sync, notify)
        try:
            project = browse.resolve_project(store, project) if project else None
            if agent:
                browse.check_agent_indexed(store, agent)
            return browse.list_sessions(store, agent=agent, project=project, since=since, until=until, limit=limit,
                                        offset=offset, grep=grep, everything=everything)
        finally:
            self._release(store)

    list_sessions = sessions

    @guarded
    def count_sessions(self, *, agent: str | None = None, project: str | None = None, since: str | None = None,
                       until: str | None = None, sync: bool = False, archive: str | None = None,
                       member: str | None = None, grep: str | None = None, all: bool = False) -> int:
        """How many sessions ``sessions()`` could page through with these filters."""
        from backscroll import browse
        from backscroll.request import ListRequest

        everything = all
        request = _listing(ListRequest(agent=agent, project=project, since=since, until=until, archive=archive,
                                       member=member, grep=grep, all=everything))
        agent, since, until = request.agent, request.since, request.until
        if archive is not None:
            from backscroll.team import browse as team
            from backscroll.types import Filters

            return team.sessions(self.config, archive, Filters(agent=agent, project=project, since=since, until=until),
                                 member, 1, 0, grep=grep, everything=everything)[1]

        store = self._records(sync, quiet)
        try:
            project = browse.resolve_project(store, project) if project else None
            if agent:
                browse.check_agent_indexed(store, agent)
            return browse.count_sessions(store, agent=agent, project=project, since=since, until=until, grep=grep,
                                         everything=everything)
        finally:
            self._release(store)

    @guarded
    def status(self, *, skipped: int = 5, check: bool = False, step=None) -> StatusReport:
        """What is indexed, from where, and what was skipped (``backscroll status``), with ``skipped`` of the lines
        skipped named (-1: every one). ``check``: check the store and its indexes in full as well (``report.check``;
        a minute at millions of records), ``step`` told each part's name as it starts."""
        from backscroll.status_report import collect

        if isinstance(skipped, bool) or not isinstance(skipped, int) or skipped < -1:
            from backscroll.errors import UsageError

            raise UsageError(f"skipped must be a whole number of lines to name (-1: every one), not {skipped!r}"[:200])

        return collect(self.config, skipped, check=bool(check), step=step)


def _listing(request: ListRequest) -> ListRequest:
    """A listing's options checked (types, bounds, choices; a member only in a team archive), with its window as
    stored times (``when.window``)."""
    from backscroll.request import check_fields
    from backscroll.when import window

    check_fields(request)
    if request.member is not None and request.archive is None:
        from backscroll.errors import UsageError

        raise UsageError("a member's sessions are listed from a team archive: --member needs --archive",
                         hint="add --archive default (the archive configured here) or --archive postgresql://…",
                         reason="member-without-archive")
    since, until = window(request.since, request.until)
    return replace(request, since=since, until=until)
