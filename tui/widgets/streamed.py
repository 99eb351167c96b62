"""What a cell that grows while it streams does: note new text, redraw at most once a frame."""

from __future__ import annotations


class Streamed:
    """Mixed into a cell whose entry grows: `add` notes new text, `flush` redraws once."""

    _dirty = False

    @property
    def dirty(self) -> bool:
        return self._dirty

    def add(self, delta: str) -> None:
        """The entry grew by `delta` (already recorded in it); draw it at the next flush."""
        self._dirty = True

    async def flush(self) -> None:
        if self._dirty:
            self._dirty = False
            await self.redraw()

    async def finish(self) -> None:
        """The item is complete; draw its final state."""
        self._dirty = False
        await self.redraw()

    async def redraw(self) -> None:
        """Draw the entry as it is now."""
        raise NotImplementedError
