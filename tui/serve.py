"""`codex-deck serve`: the app in a web browser (textual-serve), behind a secret.

Whoever opens the page drives the user's codex, and every account on a machine reaches its
loopback address. So each run makes a secret, and the page, its files and the websocket that
runs the app answer only a request that brings it: in the link printed at start (`?secret=`),
or in the cookie that link leaves in the browser. A websocket opened from another page (its
`Origin` is not this server's) is refused even with the cookie. The page loads nothing from
other machines.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hmac
import os
import re
import secrets
import shlex
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

from engine.settings import CONFIG_ENV, is_loopback

SECRET_PARAMETER = "secret"
SECRET_BYTES = 24
REFUSED = (
    "codex-deck: this page needs its secret. Open the link `codex-deck serve` printed "
    "(it ends in ?secret=…)."
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
EXTERNAL_LINK = re.compile(r"<link\b[^>]*\bhref=\"https?://[^\"]*\"[^>]*>", re.DOTALL)
"""A stylesheet (or font) the page would load from another machine."""


def local_templates(original: Path, into: str) -> Path:
    """textual-serve's page templates without what they load from other machines (its page
    pulls a font from a public CDN: whoever serves it learns who opens codex-deck, and when);
    written into the private directory `into`."""
    for template in original.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        (Path(into) / template.name).write_text(EXTERNAL_LINK.sub("", text), encoding="utf-8")
    return Path(into)


def cookie_name(port: int) -> str:
    """The cookie that carries the secret (a browser shares cookies across a host's ports)."""
    return f"codex-deck-secret-{port}"


class DeckServer(Server):
    """textual-serve's server with every request checked for the run's secret."""

    def __init__(self, command: str, host: str, port: int, secret: str) -> None:
        super().__init__(command, host=host, port=port, title="codex-deck")
        self._templates = tempfile.TemporaryDirectory(prefix="codex-deck-serve-")
        self.templates_path = local_templates(Path(self.templates_path), self._templates.name)
        self.secret = secret
        self._sessions: set[asyncio.Task[object]] = set()
        """The websockets that run an app, each until its browser leaves."""

    @property
    def link(self) -> str:
        """The address to open, with the secret in it."""
        return f"{self.public_url}/?{SECRET_PARAMETER}={self.secret}"

    async def web_app(self) -> web.Application:
        """textual-serve's application (its only maker is private: `_make_app`, which the
        serve tests run), with the secret checked before any of its routes."""
        app = await self._make_app()
        app.middlewares.append(self._checked)
        return app

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A browser session: its app runs until the browser leaves or the server stops."""
        session = asyncio.current_task()
        assert session is not None
        self._sessions.add(session)
        try:
            return await super().handle_websocket(request)
        finally:
            self._sessions.discard(session)

    async def on_shutdown(self, app: web.Application) -> None:
        """SIGINT or SIGTERM: each session's app is told to quit and waited for (its engine
        closes as the app ends, declining what waits for an answer), instead of aiohttp's wait
        for the browsers to leave."""
        for session in list(self._sessions):
            session.cancel()
        if self._sessions:
            await asyncio.wait(list(self._sessions))
        # The sessions' process transports that are garbage now are closed while the loop
        # runs: collected after it closes, they fail ("Event loop is closed").
        gc.collect()
        await asyncio.sleep(0)

    def _brings_secret(self, request: web.Request) -> tuple[bool, bool]:
        """Whether the request brings the secret, and whether it came in the link."""
        given = request.query.get(SECRET_PARAMETER, "")
        if given and hmac.compare_digest(given, self.secret):
            return True, True
        kept = request.cookies.get(cookie_name(self.port), "")
        return bool(kept) and hmac.compare_digest(kept, self.secret), False

    def _same_origin(self, request: web.Request) -> bool:
        """A browser names the page that opens a websocket: it must be this server's."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser's page: the secret alone decides
        ours, theirs = urlsplit(self.public_url), urlsplit(origin)
        return (theirs.scheme, theirs.netloc) == (ours.scheme, ours.netloc)

    @web.middleware
    async def _checked(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        brought, in_link = self._brings_secret(request)
        if not brought or (request.path == "/ws" and not self._same_origin(request)):
            return web.Response(status=403, text=REFUSED)
        response = await handler(request)
        if in_link and not response.prepared:
            response.set_cookie(
                cookie_name(self.port), self.secret, httponly=True, samesite="Strict", path="/"
            )
        return response


def app_command(args: argparse.Namespace) -> list[str]:
    """What each browser session runs: `python -m tui` with the same options."""
    forwarded = [sys.executable, "-m", "tui"]
    if args.demo:
        forwarded.append("--demo")
    if args.insecure:
        forwarded.append("--insecure")
    for flag, value in (
        ("--cwd", args.cwd),
        ("--config", os.environ.get(CONFIG_ENV)),
        ("--connect", args.connect),
        ("--token-file", args.token_file),
    ):
        if value:
            forwarded += [flag, str(value)]
    return forwarded


def serve_in_browser(args: argparse.Namespace) -> int:
    """Serve the app with textual-serve until SIGINT or SIGTERM: each browser session runs
    the app in a process of its own."""
    if not is_loopback(args.host) and not args.public:
        print(
            f"codex-deck: serving on {args.host} lets anyone who reaches it drive your codex; "
            "add --public to do it anyway.",
            file=sys.stderr,
        )
        return 2
    if not is_loopback(args.host):
        print(
            f"codex-deck: warning: serving on {args.host}, not only this machine", file=sys.stderr
        )
    secret = secrets.token_urlsafe(SECRET_BYTES)
    server = DeckServer(shlex.join(app_command(args)), args.host, args.port, secret)
    server.initialize_logging()
    # aiohttp calls `print` once the port is bound: only then is "serving" true.
    try:
        web.run_app(
            server.web_app(),
            host=args.host,
            port=args.port,
            print=lambda _: print(f"codex-deck: serving on {server.link}", flush=True),
            access_log=None,  # its lines would hold the secret of the link
        )
    except OSError as error:
        why = os.strerror(error.errno) if error.errno else str(error)
        print(f"codex-deck: cannot serve on {args.host}:{args.port}: {why}", file=sys.stderr)
        return 2
    return 0
