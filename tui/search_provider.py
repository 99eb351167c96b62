"""The command palette's search of every conversation (the store's archived ones too): each
hit names the conversation, what said it and the line; choosing one opens it there."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.command import Hit, Hits, Provider

MIN_QUERY = 3
"""Characters typed before the conversations are searched."""


class ConversationSearch(Provider):
    async def search(self, query: str) -> Hits:
        from tui.app import CodexDeckApp

        app = self.app
        if len(query.strip()) < MIN_QUERY or not isinstance(app, CodexDeckApp):
            return
        backend = app.main.backend
        if backend is None:
            return
        hits = await backend.search(query)
        for rank, hit in enumerate(hits):
            shown = Text.assemble((f"{hit.title}", "bold"), f" · {hit.where}: ", hit.excerpt)
            if hit.archived:
                shown.append(" (archived)", style="italic")
            shown.highlight_words([query.strip()], style="reverse", case_sensitive=False)
            yield Hit(
                score=1.0 - rank / (len(hits) + 1),
                match_display=shown,
                command=partial(app.main.open_search_hit, hit, query.strip()),
                text=f"{hit.title} {hit.excerpt}",
                help="search in every conversation",
            )
