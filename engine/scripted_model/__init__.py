"""An offline model for codex: a local Responses API server that plays scripted scenarios."""

from engine.scripted_model.scenario import Reply, Scenario, ScenarioError, Script, load_script
from engine.scripted_model.server import Ids, RecordedRequest, ScriptedModel, run_scripted_model

__all__ = [
    "Ids",
    "RecordedRequest",
    "Reply",
    "Scenario",
    "ScenarioError",
    "Script",
    "ScriptedModel",
    "load_script",
    "run_scripted_model",
]
