"""Finding and describing the models codex offers."""

from __future__ import annotations

import difflib

from engine.protocol import ModelInfo


def model_named(offered: list[ModelInfo], name: str) -> ModelInfo | None:
    """The model whose id, model name or display name is `name` (any case)."""
    wanted = name.casefold()
    for model in offered:
        if wanted in (model.id.casefold(), model.model.casefold(), model.display_name.casefold()):
            return model
    return None


def unknown_model(offered: list[ModelInfo], name: str) -> str:
    names = [model.model for model in offered]
    near = difflib.get_close_matches(name, names, n=3)
    hint = f" Did you mean {', '.join(near)}?" if near else " /model lists them."
    return f"codex offers no model {name!r}.{hint} Nothing changed."


def describe_model(model: ModelInfo, current: bool) -> str:
    """One line: the model, whether it is in use or codex's default, its efforts."""
    marks = [mark for mark, on in (("in use", current), ("default", model.is_default)) if on]
    efforts = ", ".join(option.reasoning_effort for option in model.supported_reasoning_efforts)
    default = (
        f" (default {model.default_reasoning_effort})" if model.default_reasoning_effort else ""
    )
    hidden = " · hidden" if model.hidden else ""
    note = f"  [{', '.join(marks)}]" if marks else ""
    return f"{model.model}{note}  efforts {efforts or 'none'}{default}{hidden}"
