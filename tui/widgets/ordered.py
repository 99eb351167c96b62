"""Keys in the order they were typed, in the boxes people type into fast.

Textual runs a key's binding (cursor left, backspace, ctrl+u, enter in a field, F2 …) once
the key has bubbled up through the message queues of the widgets around the focused one;
the keys typed after it go straight to the focused widget and are taken first. At full
speed `abc` Left `X` came out `abcX`, and a rename typed after F2 was wiped by its own
ctrl+u. A box that runs its bindings itself (`run_binding`) and says so (`keys_in_order`)
has the app hand it the next key only once it has taken the one before (`KeysFirstApp`).
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input


async def run_binding(widget: Widget, event: events.Key) -> bool:
    """Run the binding of a key that is not text (the widget's, its screen's or the app's)
    here and now; False when the key has none."""
    if event.is_printable:
        return False
    active = widget.screen.active_bindings.get(event.key)
    if active is None or not active.enabled:
        return False
    event.stop()
    event.prevent_default()
    await widget.app.run_action(active.binding.action, active.node)
    return True


class OrderedInput(Input):
    """A one-line field whose keys act in the order typed."""

    keys_in_order = True

    async def on_key(self, event: events.Key) -> None:
        await run_binding(self, event)
