"""`@` file mentions: codex's fuzzy search of a conversation's working directory, on the
machine codex runs on. Each conversation has one search session: codex walks the directory
once and keeps what it found; each query typed is searched in that, and the files come as
`FilesFound` events (again, with more, while codex still walks a large tree)."""

from __future__ import annotations

from engine import protocol as wire
from engine.conversations.core import Core
from engine.conversations.file_sessions import session_of
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.transport.appserver import AppServer


class FilesUnreadable(CodexDeckError):
    """The working directory cannot be searched; the message says why."""


class FileSearch:
    def __init__(self, core: Core) -> None:
        self._core = core
        self._sessions: dict[str, tuple[AppServer, str]] = {}
        """Each search session started: on which codex (one started again knows none), and
        the root it walks."""

    async def find(self, conversation_id: str, query: str) -> None:
        """Search the conversation's working directory for `query`; the files come as
        `FilesFound` events. A search typed after another replaces it.

        Raises:
            FilesUnreadable: the directory is not there or is not a directory, or codex is
                not running.
        """
        conversation = self._core.conversations.get(conversation_id)
        reason = self._core.link.not_running()
        if reason is not None:
            raise FilesUnreadable(f"codex is not running ({reason}): no file can be found.")
        root = conversation.cwd
        session = session_of(conversation.id)
        server = self._core.server
        try:
            if self._sessions.get(session) != (server, root):
                there = await server.fs_get_metadata(wire.FsGetMetadataParams(path=root))
                if not there.is_directory:
                    raise FilesUnreadable(f"{root} is not a directory: no file can be found.")
                await server.file_search_start(
                    wire.FileSearchStartParams(session_id=session, roots=[root])
                )
                self._sessions[session] = (server, root)
            await server.file_search_update(
                wire.FileSearchUpdateParams(session_id=session, query=query)
            )
        except RpcError as error:
            raise FilesUnreadable(f"codex cannot search {root}: {error}") from None
        except ConnectionClosed as error:
            raise FilesUnreadable(f"codex went away: {error}") from None
