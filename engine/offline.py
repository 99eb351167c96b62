"""Running codex on the scripted model: no account, no network."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from engine.settings import ProviderSettings, Settings

OFFLINE_PROVIDER = "codex-deck-offline"
OFFLINE_MODEL = "codex-deck-scripted"
OFFLINE_NOISE = (f"Model metadata for `{OFFLINE_MODEL}` not found",)
"""Warnings codex gives about the scripted model itself, which tell the user nothing."""


class ModelServer(Protocol):
    @property
    def base_url(self) -> str: ...


def offline_settings(base: Settings, model: ModelServer, home: Path) -> Settings:
    """`base` with codex pointed at the scripted model, in its own CODEX_HOME.

    The scripted model answers at once or not at all, so retries are off; the plugin sync
    (which reaches for the network at start-up) is off too.
    """
    provider = ProviderSettings(
        base_url=model.base_url,
        request_max_retries=0,
        stream_max_retries=0,
        supports_websockets=False,
    )
    codex = replace(
        base.codex,
        provider=OFFLINE_PROVIDER,
        model=OFFLINE_MODEL,
        home=home,
        config=[*base.codex.config, "features.plugins=false"],
    )
    return replace(base, codex=codex, providers={**base.providers, OFFLINE_PROVIDER: provider})
