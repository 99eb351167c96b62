"""The command palette's search of every conversation (the store's archived ones too): each
hit names the conversation, what said it and the line; choosing one opens it there."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.command import Hit, Hits, Provider

from tui.text import inert

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
            title, excerpt = inert(hit.title), inert(hit.excerpt)
            shown = Text.assemble((title, "bold"), f" · {hit.where}: ", excerpt)
            if hit.archived:
                shown.append(" (archived)", style="italic")
            shown.highlight_words([query.strip()], style="reverse", case_sensitive=False)
            yield Hit(
                score=1.0 - rank / (len(hits) + 1),
                match_display=shown,
                command=partial(app.main.open_search_hit, hit, query.strip()),
                text=f"{title} {excerpt}",
                help="search in every conversation",
            )
