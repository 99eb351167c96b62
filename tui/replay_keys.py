"""What the keys of a replay do (f9 pauses and plays, f10 steps an item): they work only
while the app plays a recording."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.pacing import KeysFirstApp

if TYPE_CHECKING:
    from engine.replay import ReplayBackend


class ReplayKeys(KeysFirstApp):
    """An app that may play a recording (`playing` says which, if it does)."""

    def playing(self) -> ReplayBackend | None:
        """The replay the app plays, if it plays one."""
        raise NotImplementedError

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action.startswith("replay_"):
            return self.playing() is not None
        return True

    def action_replay_pause(self) -> None:
        """Pause the replay, or play on from where it is."""
        replay = self.playing()
        if replay is None:
            return
        if replay.paused:
            replay.resume()
            self.notify(f"Playing from event {replay.played} of {replay.total}.")
        else:
            replay.pause()
            self.notify(f"Paused at event {replay.played} of {replay.total}: f10 steps, f9 plays.")

    def action_replay_step(self) -> None:
        """Play the next item of a paused replay."""
        replay = self.playing()
        if replay is not None:
            replay.step()
