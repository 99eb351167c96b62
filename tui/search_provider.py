"""The command palette's search of every conversation (the store's archived ones too): each
hit names the conversation, what said it and the line; choosing one opens it there."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from rich.text import Text
from textual.command import Hit, Hits, Provider

from tui.text import inert

if TYPE_CHECKING:
    from engine import SearchHit

MIN_QUERY = 3
"""Characters typed before the conversations are searched."""


@runtime_checkable
class Searched(Protocol):
    """A screen whose conversations the palette searches (the main screen)."""

    async def search_conversations(self, query: str) -> list[SearchHit]: ...

    async def open_search_hit(self, hit: SearchHit, query: str) -> None: ...


class ConversationSearch(Provider):
    async def search(self, query: str) -> Hits:
        screen = self.screen
        if len(query.strip()) < MIN_QUERY or not isinstance(screen, Searched):
            return
        hits = await screen.search_conversations(query)
        for rank, hit in enumerate(hits):
            title, excerpt = inert(hit.title), inert(hit.excerpt)
            if hit.host is not None:
                title += f" ({hit.host})"
            shown = Text.assemble((title, "bold"), f" · {hit.where}: ", excerpt)
            if hit.archived:
                shown.append(" (archived)", style="italic")
            shown.highlight_words([query.strip()], style="reverse", case_sensitive=False)
            yield Hit(
                score=1.0 - rank / (len(hits) + 1),
                match_display=shown,
                command=partial(screen.open_search_hit, hit, query.strip()),
                text=f"{title} {excerpt}",
                help="search in every conversation",
            )
