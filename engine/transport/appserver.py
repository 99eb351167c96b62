"""A connection to a Codex app-server: the handshake, typed requests, and what it sends.

`open_app_server` works over any `Transport` (a child process today; a socket later), so
nothing here knows how the bytes travel. `spawn_app_server` is the common case.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol, TypeVar

import anyio
import msgspec
from anyio.abc import ByteReceiveStream, ByteSendStream

from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.protocol import (
    AccountReadParams,
    AccountReadResult,
    ClientInfo,
    CommandExecParams,
    CommandExecResult,
    CommandExecTerminateParams,
    EmptyResult,
    FileSearchStartParams,
    FileSearchStopParams,
    FileSearchUpdateParams,
    FsDirectory,
    FsGetMetadataParams,
    FsMetadata,
    FsReadDirectoryParams,
    FsRemoveParams,
    InitializeCapabilities,
    InitializeParams,
    InitializeResult,
    KnownServerRequest,
    McpServerStatusList,
    McpServerStatusListParams,
    ReviewStartParams,
    ServerNotification,
    ThreadArchiveParams,
    ThreadCompactStartParams,
    ThreadForkParams,
    ThreadGoalClearParams,
    ThreadGoalResult,
    ThreadGoalSetParams,
    ThreadInjectItemsParams,
    ThreadOpened,
    ThreadReadParams,
    ThreadReadResult,
    ThreadResumeParams,
    ThreadShellCommandParams,
    ThreadStartParams,
    ThreadUnarchiveParams,
    TurnInterruptParams,
    TurnStartParams,
    TurnStartResult,
    TurnSteerParams,
    TurnSteerResult,
    UnknownServerRequest,
    ValidationError,
    WireModel,
    decline,
    parse_notification,
    parse_server_request,
)
from engine.transport.binary import check_codex_version
from engine.transport.fanout import Subscription
from engine.transport.launch import Launch
from engine.transport.process import AppServerProcess, Spawned
from engine.transport.rpc import (
    DEFAULT_MAX_LINE_BYTES,
    METHOD_NOT_FOUND,
    BadLine,
    Incoming,
    RequestId,
    RpcConnection,
    ServerRequest,
    request_line,
)
from engine.transport.tasks import task_group
from engine.version import __version__

CLIENT_NAME = "codex_deck"
CLIENT_TITLE = "codex-deck"
INITIALIZE_TIMEOUT_SECONDS = 30.0
EXPERIMENTAL_API = True
"""codex-deck asks for codex's experimental API on each of its connections (for thread
start's dynamic tools, for example)."""

ResultT = TypeVar("ResultT", bound=WireModel)
ServerRequestHandler = Callable[[RequestId, KnownServerRequest], Awaitable[WireModel]]


class Transport(Protocol):
    """Where the bytes of a connection travel, and how to end it."""

    @property
    def send(self) -> ByteSendStream: ...

    @property
    def receive(self) -> ByteReceiveStream: ...

    async def run(self) -> None:
        """Background work for as long as the connection lives."""

    async def describe_close(self) -> str:
        """Why the peer's output ended."""

    def handshaken(self) -> None:
        """The handshake is done: what the peer said while starting no longer explains why
        it ends."""

    async def aclose(self) -> None:
        """End the connection."""


NOT_HELD = (
    "account/",
    "config/read",
    "command/exec",
    "fs/getMetadata",
    "mcpServerStatus/list",
    "fuzzyFileSearch",
    "model/list",
    "thread/list",
    "thread/items/list",
    "thread/read",
    "thread/resume",
    "thread/start",
    "thread/turns/list",
    "thread/unarchive",
)
"""Requests that need no thread resumed first (method names, or their beginnings)."""


class AppServer:
    """An initialized app-server connection.

    Requests are typed; `notifications()` yields typed notifications (and `BadLine`s for
    lines that were skipped); server requests go to the handler set with
    `handle_requests`.
    """

    def __init__(self, rpc: RpcConnection, transport: Transport, info: InitializeResult) -> None:
        self.rpc = rpc
        self.transport = transport
        self.info = info
        """What the server said about itself in the handshake (user agent, CODEX_HOME …)."""
        self._held: anyio.Event | None = None
        self.handle_requests(_decline)

    def hold(self, until: anyio.Event) -> None:
        """Keep requests that act on a loaded thread (a turn, a fork, an archive …) waiting
        until `until` is set: the threads they act on are still being resumed. Reading and
        listing, resuming, starting a thread and the account go at once."""
        self._held = until

    async def call(self, method: str, params: WireModel, result_type: type[ResultT]) -> ResultT:
        """Send a request and read its result into `result_type`.

        Raises:
            RpcError: codex refused the request.
            ConnectionClosed: the connection ended first.
            CodexDeckError: the result did not have the expected shape.
        """
        if self._held is not None and not method.startswith(NOT_HELD):
            await self._held.wait()
        raw = await self.rpc.request(method, params.to_wire())
        try:
            return result_type.read(raw if raw is not None else {})
        except ValidationError as error:
            raise CodexDeckError(
                f"codex answered {method} with something unexpected: {error}"
            ) from None

    async def thread_start(self, params: ThreadStartParams) -> ThreadOpened:
        return await self.call("thread/start", params, ThreadOpened)

    async def thread_resume(self, params: ThreadResumeParams) -> ThreadOpened:
        return await self.call("thread/resume", params, ThreadOpened)

    async def thread_fork(self, params: ThreadForkParams) -> ThreadOpened:
        return await self.call("thread/fork", params, ThreadOpened)

    async def thread_read(self, params: ThreadReadParams) -> ThreadReadResult:
        return await self.call("thread/read", params, ThreadReadResult)

    async def thread_archive(self, params: ThreadArchiveParams) -> EmptyResult:
        return await self.call("thread/archive", params, EmptyResult)

    async def thread_unarchive(self, params: ThreadUnarchiveParams) -> EmptyResult:
        return await self.call("thread/unarchive", params, EmptyResult)

    async def thread_compact_start(self, params: ThreadCompactStartParams) -> EmptyResult:
        return await self.call("thread/compact/start", params, EmptyResult)

    async def thread_shell_command(self, params: ThreadShellCommandParams) -> EmptyResult:
        return await self.call("thread/shellCommand", params, EmptyResult)

    async def file_search_start(self, params: FileSearchStartParams) -> EmptyResult:
        return await self.call("fuzzyFileSearch/sessionStart", params, EmptyResult)

    async def file_search_update(self, params: FileSearchUpdateParams) -> EmptyResult:
        return await self.call("fuzzyFileSearch/sessionUpdate", params, EmptyResult)

    async def file_search_stop(self, params: FileSearchStopParams) -> EmptyResult:
        return await self.call("fuzzyFileSearch/sessionStop", params, EmptyResult)

    async def thread_goal_set(self, params: ThreadGoalSetParams) -> ThreadGoalResult:
        return await self.call("thread/goal/set", params, ThreadGoalResult)

    async def thread_goal_clear(self, params: ThreadGoalClearParams) -> EmptyResult:
        return await self.call("thread/goal/clear", params, EmptyResult)

    async def mcp_server_status(self, params: McpServerStatusListParams) -> McpServerStatusList:
        return await self.call("mcpServerStatus/list", params, McpServerStatusList)

    async def command_exec(self, params: CommandExecParams) -> CommandExecResult:
        return await self.call("command/exec", params, CommandExecResult)

    async def command_exec_terminate(self, params: CommandExecTerminateParams) -> EmptyResult:
        return await self.call("command/exec/terminate", params, EmptyResult)

    async def thread_inject_items(self, params: ThreadInjectItemsParams) -> EmptyResult:
        return await self.call("thread/inject_items", params, EmptyResult)

    async def review_start(self, params: ReviewStartParams) -> EmptyResult:
        return await self.call("review/start", params, EmptyResult)

    async def fs_get_metadata(self, params: FsGetMetadataParams) -> FsMetadata:
        return await self.call("fs/getMetadata", params, FsMetadata)

    async def fs_read_directory(self, params: FsReadDirectoryParams) -> FsDirectory:
        return await self.call("fs/readDirectory", params, FsDirectory)

    async def fs_remove(self, params: FsRemoveParams) -> EmptyResult:
        return await self.call("fs/remove", params, EmptyResult)

    async def turn_start(self, params: TurnStartParams) -> TurnStartResult:
        return await self.call("turn/start", params, TurnStartResult)

    async def turn_steer(self, params: TurnSteerParams) -> TurnSteerResult:
        return await self.call("turn/steer", params, TurnSteerResult)

    async def turn_interrupt(self, params: TurnInterruptParams) -> EmptyResult:
        return await self.call("turn/interrupt", params, EmptyResult)

    async def account_read(self, params: AccountReadParams) -> AccountReadResult:
        return await self.call("account/read", params, AccountReadResult)

    @asynccontextmanager
    async def notifications(self) -> AsyncIterator[AsyncIterator[Received]]:
        """Subscribe to what the server sends from now on (notifications, requests), typed.

        The iterator ends when the connection closes.
        """
        raw = self.rpc.subscribe()
        with raw:
            yield _typed(raw)

    def handle_requests(self, handler: ServerRequestHandler) -> None:
        """Set the coroutine that answers approvals, questions and forms.

        It gets the request id and the typed params and returns the reply model. Until one
        is set, every request is declined. Requests codex-deck does not know are refused
        with "method not found", never approved.
        """

        async def answer(request: ServerRequest) -> Any:
            params = parse_server_request(request.method, request.params)
            if isinstance(params, UnknownServerRequest):
                raise RpcError(METHOD_NOT_FOUND, f"codex-deck does not handle {params.name}")
            reply = await handler(request.id, params)
            return reply.to_wire()

        self.rpc.handle_requests(answer)


async def _decline(request_id: RequestId, params: KnownServerRequest) -> WireModel:
    return decline(params)


class IncomingRequest(msgspec.Struct, frozen=True):
    """A server request in its place in the stream (the request handler answers it)."""

    request_id: RequestId
    params: KnownServerRequest | UnknownServerRequest


Received = ServerNotification | IncomingRequest | BadLine
"""What the server sends, typed."""


def typed(incoming: Incoming) -> Received:
    """Read one incoming message into its typed form; never raises."""
    if isinstance(incoming, BadLine):
        return incoming
    if isinstance(incoming, ServerRequest):
        return IncomingRequest(incoming.id, parse_server_request(incoming.method, incoming.params))
    return parse_notification(incoming.method, incoming.params)


async def _typed(raw: Subscription[Incoming]) -> AsyncIterator[Received]:
    async for incoming in raw:
        yield typed(incoming)


@asynccontextmanager
async def open_app_server(
    transport: Transport,
    *,
    experimental_api: bool = False,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    greeted: bool = False,
) -> AsyncIterator[AppServer]:
    """Connect over `transport`, do the initialize handshake (`greeted`: its `initialize`
    went out already, as `greet` sends it), and close it on exit.

    Raises:
        ConnectionClosed: the server went away during the handshake (with its exit status
            and last stderr lines when it is a process).
        CodexTooOld: the server's codex is older than codex-deck supports.
    """
    rpc = RpcConnection(
        transport.send,
        transport.receive,
        max_line_bytes=max_line_bytes,
        describe_close=transport.describe_close,
    )
    async with task_group() as tasks:
        tasks.start_soon(transport.run)
        tasks.start_soon(rpc.run)
        try:
            params = initialize_params(experimental_api)
            with anyio.move_on_after(INITIALIZE_TIMEOUT_SECONDS) as waited:
                raw = await rpc.request("initialize", params, written=greeted)
            if waited.cancelled_caught:
                seconds = f"{INITIALIZE_TIMEOUT_SECONDS:.0f}"
                raise ConnectionClosed(f"codex did not answer `initialize` within {seconds} s")
            info = InitializeResult.read(raw)
            check_codex_version(info.user_agent)
            await rpc.notify("initialized")
            transport.handshaken()
            yield AppServer(rpc, transport, info)
        finally:
            await transport.aclose()
            tasks.cancel_scope.deadline = anyio.current_time() + 1.0


@asynccontextmanager
async def spawn_app_server(
    launch: Launch,
    *,
    experimental_api: bool = False,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    spawned: Spawned | None = None,
) -> AsyncIterator[AppServer]:
    """Start `codex app-server` as a child process (or take up `spawned`, started for this
    launch already) and connect to it."""
    if spawned is not None:
        process = await AppServerProcess.adopt(spawned)
    else:
        process = await AppServerProcess.start(launch)
    greeted = spawned is not None and spawned.greeted
    opened = open_app_server(
        process, experimental_api=experimental_api, max_line_bytes=max_line_bytes, greeted=greeted
    )
    async with opened as server:
        yield server


def initialize_params(experimental_api: bool) -> dict[str, Any]:
    """What codex-deck says of itself as it connects."""
    params = InitializeParams(
        client_info=ClientInfo(name=CLIENT_NAME, title=CLIENT_TITLE, version=__version__),
        capabilities=InitializeCapabilities(experimental_api=experimental_api),
    )
    return params.to_wire()


def greet(spawned: Spawned) -> Spawned:
    """`spawned`, with `initialize` written to it already: codex answers it while codex-deck
    imports the rest of itself, and the engine, taking it up, only reads the answer. The
    same if it cannot be written (codex has ended: the engine says why as it takes it up)."""
    line = request_line(0, "initialize", initialize_params(EXPERIMENTAL_API))
    try:
        spawned.stdin.sendall(line)
    except OSError:
        return spawned
    return msgspec.structs.replace(spawned, greeted=True)
