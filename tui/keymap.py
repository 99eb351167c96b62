"""What is wrong with the look and keys the settings ask for (`[ui] theme`, `[ui] keys`).

The settings file is read before the app has its screens and widgets, so these two are
checked by the app: a theme it does not have, a key given to a binding id nothing has.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import unicodedata
from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import KEY_ALIASES, KEY_NAME_REPLACEMENTS, Keys
from textual.theme import BUILTIN_THEMES

from engine.settings import UiSettings
from themes.built import THEMES

PACKAGES = ("tui.screens", "tui.widgets")


def binding_ids() -> set[str]:
    """The id of every binding of codex-deck's app, screens and widgets (F1 shows them)."""
    importlib.import_module("tui.app")
    for name in PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{name}.{module.name}")
    ids: set[str] = set()
    classes: list[type[DOMNode]] = [DOMNode]
    while classes:
        kind = classes.pop()
        classes += kind.__subclasses__()
        if not kind.__module__.startswith("tui."):
            continue
        for binding in vars(kind).get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id:
                ids.add(binding.id)
    return ids


def _nearest(name: str, valid: Iterable[str]) -> str:
    nearest = difflib.get_close_matches(name, list(valid), n=1)
    return f"; did you mean {nearest[0]!r}?" if nearest else ""


def theme_names() -> set[str]:
    """The themes the app has: its own and Textual's."""
    return {theme.name for theme in THEMES} | set(BUILTIN_THEMES)


def theme_problem(theme: str) -> str | None:
    """What to tell when `[ui] theme` names no theme the app has (it then uses its own)."""
    known = sorted(theme_names())
    if theme in known:
        return None
    return f"[ui] theme {theme!r} is no theme here, so the default is used{_nearest(theme, known)}"


def ui_problems(ui: UiSettings) -> list[str]:
    """What `[ui]` asks for that the app cannot do (it starts without it)."""
    return [*filter(None, [theme_problem(ui.theme)]), *key_problems(ui.keys)]


def key_problems(keys: Mapping[str, str]) -> list[str]:
    """What to tell of `[ui] keys` entries that name no binding, or no key (they do
    nothing)."""
    if not keys:
        return []  # the bindings' modules are not imported for nothing
    known = binding_ids()
    problems = [
        f"[ui] keys: {name!r} is no binding's id, so {key!r} does nothing"
        f"{_nearest(name, known)} (F1 shows each key's id in brackets)"
        for name, key in keys.items()
        if name not in known
    ]
    names = key_names()
    for name, given in keys.items():
        for key in (part.strip() for part in given.split(",")):
            *modifiers, last = key.split("+")
            if last not in names or not set(modifiers) <= MODIFIERS:
                problems.append(
                    f"[ui] keys: {key!r} (for {name!r}) is no key{_nearest(last, names)} "
                    "(keys are written as ctrl+x, shift+f5, escape)"
                )
    return problems


MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


def key_names() -> set[str]:
    """The names Textual gives keys: its named keys, and each printable character's (its
    Unicode name in lower case with `_`, as Textual shortens some: `slash`, `minus`)."""
    names = {key.value for key in Keys if "+" not in key.value} | set(KEY_ALIASES)
    for code in range(33, 127):
        character = chr(code)
        name = unicodedata.name(character).lower().replace(" ", "_").replace("-", "_")
        names |= {character, KEY_NAME_REPLACEMENTS.get(name, name)}
    return names
