"""Images attached to the next message: checked by their bytes before they are staged and
again before they are sent (as `localImage` input, which codex reads from disk)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from engine.errors import CodexDeckError
from engine.protocol import LocalImageInput, TextInput, UserInput

SIGNATURES: tuple[tuple[str, bytes], ...] = (
    ("PNG", b"\x89PNG\r\n\x1a\n"),
    ("JPEG", b"\xff\xd8\xff"),
    ("GIF", b"GIF87a"),
    ("GIF", b"GIF89a"),
)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
"""Suffixes that make a pasted path look like an image (the bytes still decide)."""


class ImageRefused(CodexDeckError):
    """The file cannot be attached; the message says why."""


class AttachedImage(msgspec.Struct, frozen=True, kw_only=True):
    """An image staged for the next message."""

    path: str
    """Absolute."""
    kind: str
    """PNG, JPEG, GIF or WebP, from its first bytes."""
    size: int
    """Bytes."""

    @property
    def label(self) -> str:
        return f"{Path(self.path).name} ({self.kind}, {_size(self.size)})"


def check_image(path: Path, limit: int, cwd: Path | None = None) -> AttachedImage:
    """The image at `path` (under `cwd` when relative) if it can be sent: a readable PNG,
    JPEG, GIF or WebP file (by its bytes, whatever its name says) of at most `limit` bytes.

    Raises:
        ImageRefused: saying what is wrong with it.
    """
    shown = str(path)
    path = path.expanduser()
    if cwd is not None:
        path = cwd / path
    try:
        resolved = path.resolve(strict=True)
        if not resolved.is_file():
            raise ImageRefused(f"{shown} is not a file; nothing was attached.")
        size = resolved.stat().st_size
        if size > limit:
            raise ImageRefused(
                f"{shown} is {_size(size)}; images may be at most {_size(limit)} "
                "([limits] image_bytes). Nothing was attached."
            )
        with resolved.open("rb") as file:
            head = file.read(16)
    except FileNotFoundError:
        raise ImageRefused(f"{shown}: no such file; nothing was attached.") from None
    except OSError as error:
        raise ImageRefused(
            f"{shown} cannot be read ({error.strerror}); nothing was attached."
        ) from None
    kind = image_kind(head)
    if kind is None:
        raise ImageRefused(
            f"{shown} is not a PNG, JPEG, GIF or WebP image (by its content, whatever its "
            "name says); nothing was attached."
        )
    return AttachedImage(path=str(resolved), kind=kind, size=size)


def image_kind(head: bytes) -> str | None:
    """The image format the first bytes of a file announce, if one codex can send."""
    for kind, signature in SIGNATURES:
        if head.startswith(signature):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return None


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def user_input(text: str, images: tuple[str, ...]) -> list[UserInput]:
    """A message as codex takes it: its text, then each image by path."""
    parts: list[UserInput] = [TextInput(text=text)] if text.strip() else []
    return parts + [LocalImageInput(path=path) for path in images]
