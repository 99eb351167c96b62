"""`[ui] keys` checked as the settings are read: a binding id that is none, a key that is no
key; every key Textual's and codex-deck's own bindings use passes the check (it fails if
Textual names its keys otherwise)."""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode

from tui.keymap import MODIFIERS, binding_ids, key_names, key_problems


def test_a_key_that_is_no_key_is_named() -> None:
    problems = key_problems({"app.quit": "ctrl+qq", "app.help": "ctrl+shift+f5, question_mark"})
    assert problems == [
        "[ui] keys: 'ctrl+qq' (for 'app.quit') is no key; did you mean 'q'? "
        "(keys are written as ctrl+x, shift+f5, escape)"
    ]
    assert key_problems({"app.quit": "hyperx+q"})[0].startswith("[ui] keys: 'hyperx+q'")


def test_every_key_the_bindings_use_is_a_key_the_check_knows() -> None:
    binding_ids()  # imports every module of the app's screens and widgets
    names, used = key_names(), set()
    classes: list[type[DOMNode]] = [DOMNode]
    while classes:
        kind = classes.pop()
        classes += kind.__subclasses__()
        for binding in vars(kind).get("BINDINGS", []):
            keys = binding.key if isinstance(binding, Binding) else binding[0]
            used |= {key.strip() for key in keys.split(",")}
    assert len(used) > 50, "Textual's widgets and codex-deck's were seen"
    unknown = [
        key
        for key in sorted(used)
        if key.split("+")[-1] not in names or not set(key.split("+")[:-1]) <= MODIFIERS
    ]
    assert unknown == []
