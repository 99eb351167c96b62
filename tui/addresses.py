"""What an address given on the command line reaches: this machine only, or more."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from engine.errors import SettingsError
from engine.settings import is_loopback


def checked_connection(url: str, token_file: Path | None, insecure: bool) -> list[str]:
    """Warnings for `--connect URL`; an app-server on another machine that nothing
    authenticates is refused unless `--insecure` says to go ahead."""
    parts = urlsplit(url)
    if parts.scheme != "ws" or parts.hostname is None or is_loopback(parts.hostname):
        return []
    if token_file is None and not insecure:
        raise SettingsError(
            f"--connect {url}: {parts.hostname} is not this machine and no --token-file was "
            "given; an app-server that takes connections without a token runs commands for "
            "anyone who reaches it. Give --token-file, or add --insecure to connect anyway"
        )
    return [
        f"warning: {url} is another machine over plain ws://; what is sent (the token too) "
        "crosses the network unencrypted"
    ]
