"""What a conversation's next turn runs with: the model and its reasoning effort, the model
provider (codex keeps a thread's, so the thread is forked onto another), and the images staged
for the next message."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import anyio

from engine import protocol as wire
from engine.conversations.core import Core
from engine.conversations.models import model_named, unknown_model
from engine.errors import ConnectionClosed, RpcError
from engine.events import BUSY_STATES
from engine.images import ImageRefused, check_image
from engine.results import CommandResult
from engine.transport.launch import thread_defaults


class Choices:
    """The model, provider and images of each conversation's next turn, on the codex in use
    (`server()`: it changes when codex is started again)."""

    def __init__(self, core: Core) -> None:
        self._core = core

    async def models(self, include_hidden: bool = False) -> list[wire.ModelInfo]:
        """The models codex offers (`model/list`, every page)."""
        found: list[wire.ModelInfo] = []
        cursor = None
        while True:
            params = wire.ModelListParams(include_hidden=include_hidden, cursor=cursor)
            page = await self._core.server.call("model/list", params, wire.ModelListResult)
            found += page.data
            cursor = page.next_cursor
            if cursor is None:
                return found

        return self._core.settings.limits.image_bytes

    async def choose_model(
        self, conversation_id: str, name: str, effort: str | None = None
    ) -> CommandResult:
        """Use model `name` (with `effort`, else its default) from the conversation's next
        turn. Nothing changes unless codex offers that model and it takes that effort."""
        conversation = self._core.conversations.get(conversation_id)
        try:
            offered = await self.models(include_hidden=True)
        except (RpcError, ConnectionClosed) as error:
            return self._core.notices.failed(
                conversation.id, f"codex could not list its models: {error}"
            )
        chosen = model_named(offered, name)
        if chosen is None:
            return self._core.notices.failed(conversation.id, unknown_model(offered, name))
        efforts = [option.reasoning_effort for option in chosen.supported_reasoning_efforts]
        effort = effort or chosen.default_reasoning_effort
        if effort is not None and efforts and effort not in efforts:
            return self._core.notices.failed(
                conversation.id,
                f"{chosen.model} takes reasoning effort {', '.join(efforts)}; not {effort!r}.",
            )
        conversation.model = chosen.model
        conversation.reasoning_effort = cast(wire.ReasoningEffort | None, effort)
        self._core.router.updated(conversation)
        shown = f"{chosen.model} ({effort})" if effort else chosen.model
        return self._core.notices.told(conversation, f"Model: {shown}, from the next turn.")

    async def switch_provider(self, conversation_id: str, name: str) -> CommandResult:
        """Run the conversation on provider `name` from now on: codex keeps a thread's
        provider, so the thread is forked onto it (history kept, generation + 1)."""
        conversation = self._core.conversations.get(conversation_id)
        if name not in self._core.settings.providers:
            known = ", ".join(self._core.settings.providers) or "none are set"
            return self._core.notices.failed(
                conversation.id,
                f"No [providers.{name}] in the settings ({known}). Nothing changed.",
            )
        if conversation.state in BUSY_STATES:
            return self._core.notices.failed(
                conversation.id, "A turn is running; /stop it first. Nothing changed."
            )
        defaults = thread_defaults(self._core.settings, Path(conversation.cwd)).as_dict()
        defaults["model_provider"] = name
        if conversation.thread_id is None:
            conversation.provider = name
            return self._core.notices.told(
                conversation, f"Provider: {name}, from the first message."
            )
        params = wire.ThreadForkParams(
            **defaults, thread_id=conversation.thread_id, ephemeral=False
        )
        try:
            opened = await self._core.server.thread_fork(params)
        except (RpcError, ConnectionClosed) as error:
            return self._core.notices.failed(
                conversation.id, f"codex could not move to {name}: {error}"
            )
        conversation.generation += 1
        conversation.thread = opened
        conversation.provider = name
        self._core.conversations.bind(conversation, opened.thread.id)
        self._core.router.updated(conversation)
        return self._core.notices.told(
            conversation,
            f"Provider: {name}. This conversation goes on in a fork of its thread (generation "
            f"{conversation.generation}), with its history.",
        )

    async def attach_image(self, conversation_id: str, path: Path) -> CommandResult:
        """Stage the image at `path` (relative to the conversation's cwd) for the next
        message, once it is checked (a PNG, JPEG, GIF or WebP by its bytes, under the size
        limit); refused with the reason, leaving what is staged as it was."""
        conversation = self._core.conversations.get(conversation_id)
        limit = self._core.settings.limits.images_per_message
        if len(conversation.images) >= limit:
            return self._core.notices.failed(
                conversation.id,
                f"{limit} images are already attached (the limit is {limit}); nothing was "
                "attached.",
            )
        cwd = Path(conversation.cwd)
        try:
            image = await anyio.to_thread.run_sync(check_image, path, self._image_limit, cwd)
        except ImageRefused as error:
            return self._core.notices.failed(conversation.id, str(error))
        if any(staged.path == image.path for staged in conversation.images):
            return self._core.notices.failed(conversation.id, f"{image.label} is already attached.")
        conversation.images.append(image)
        self._core.router.updated(conversation)
        return CommandResult(True, f"Attached {image.label} to your next message.")

    @property
    def _image_limit(self) -> int:
        return self._core.settings.limits.image_bytes
