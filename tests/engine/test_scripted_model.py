"""The scripted model at the HTTP level: what it streams for each kind of reply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from engine.scripted_model import ScenarioError, ScriptedModel, load_script, run_scripted_model

pytestmark = pytest.mark.anyio


def user_message(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def request_body(*items: dict[str, Any]) -> dict[str, Any]:
    context = user_message("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>")
    return {"model": "m", "stream": True, "input": [context, *items]}


async def post(model: ScriptedModel, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """POST /v1/responses; the status line and the SSE events, read until the body ends."""
    data = json.dumps(body).encode()
    async with await anyio.connect_tcp("127.0.0.1", model.port) as stream:
        await stream.send(
            b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(data)}\r\n\r\n".encode()
            + data
        )
        buffered = BufferedByteReceiveStream(stream)
        head = (await buffered.receive_until(b"\r\n\r\n", 65536)).decode()
        payload = b""
        while True:
            size = int(await buffered.receive_until(b"\r\n", 64), 16)
            if size == 0:
                break
            payload += await buffered.receive_exactly(size)
            await buffered.receive_exactly(2)
    events = [
        json.loads(line.removeprefix("data: "))
        for line in payload.decode().splitlines()
        if line.startswith("data: ")
    ]
    return head.split("\r\n")[0], events


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def streamed_text(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


async def test_a_text_reply_streams_deltas_that_add_up_to_the_message() -> None:
    async with run_scripted_model() as model:
        status, events = await post(model, request_body(user_message("show markdown")))
    assert status == "HTTP/1.1 200 OK"
    done = [e for e in events if e["type"] == "response.output_item.done"]
    final = done[-1]["item"]["content"][0]["text"]
    assert final.startswith("## Streaming Markdown")
    assert streamed_text(events) == final
    assert kinds(events)[0] == "response.created"
    assert kinds(events)[-1] == "response.completed"
    assert "response.reasoning_summary_text.delta" in kinds(events)
    assert model.requests[0].user_text == "show markdown"


async def test_the_reply_index_follows_the_tool_outputs_of_the_turn() -> None:
    async with run_scripted_model() as model:
        _, first = await post(model, request_body(user_message("approval please")))
        call = next(e["item"] for e in first if e["type"] == "response.output_item.done")
        arguments = json.loads(call["arguments"])
        assert call["name"] == "exec_command"
        assert arguments["sandbox_permissions"] == "require_escalated"
        assert arguments["justification"] == "Allow writing out.txt outside the sandbox?"
        output = {"type": "function_call_output", "call_id": call["call_id"], "output": "ok"}
        _, second = await post(model, request_body(user_message("approval please"), call, output))
    assert streamed_text(second).startswith("The approval was answered")


async def test_a_patch_reply_is_apply_patch_through_exec_command() -> None:
    async with run_scripted_model() as model:
        _, events = await post(model, request_body(user_message("create a file")))
    call = next(e["item"] for e in events if e["type"] == "response.output_item.done")
    command = json.loads(call["arguments"])["cmd"]
    assert command.startswith("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.txt\n")
    assert command.endswith("*** End Patch\nEOF\n")


async def test_failure_and_cut_replies() -> None:
    async with run_scripted_model() as model:
        _, failed = await post(model, request_body(user_message("fail please")))
        _, cut = await post(model, request_body(user_message("drop the stream")))
    assert kinds(failed)[-1] == "response.failed"
    assert failed[-1]["response"]["error"]["message"] == "The scripted model failed on purpose."
    assert "response.completed" not in kinds(cut)
    assert "response.output_item.done" not in kinds(cut)
    assert streamed_text(cut) == "This answer will be cut off in the mid"


async def test_a_held_reply_finishes_when_released() -> None:
    async with run_scripted_model() as model, anyio.create_task_group() as tasks:
        result: list[list[dict[str, Any]]] = []

        async def ask() -> None:
            result.append((await post(model, request_body(user_message("take your time"))))[1])

        tasks.start_soon(ask)
        await model.wait_until_holding()
        assert result == []
        model.release()
    assert kinds(result[0])[-1] == "response.completed"


async def test_anything_else_gets_the_fallback_listing_the_scenarios() -> None:
    async with run_scripted_model() as model:
        _, events = await post(model, request_body(user_message("what can you do?")))
    text = streamed_text(events)
    assert "offline scripted model" in text
    assert "- **approval**:" in text
    assert "{scenarios}" not in text


async def test_other_paths_get_404() -> None:
    async with run_scripted_model() as model, await anyio.connect_tcp("127.0.0.1", model.port) as s:
        await s.send(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n")
        head = await BufferedByteReceiveStream(s).receive_until(b"\r\n", 1024)
    assert head == b"HTTP/1.1 404 Not Found"
    assert model.requests[0].path == "/v1/models"


def test_a_bad_scenario_file_names_the_file_and_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[scenario]]\nname = "oops"\nmatch = "x"\n[[scenario.reply]]\nchunk = "big"\n')
    with pytest.raises(ScenarioError, match=r"bad.toml: scenario 'oops': chunk must be a int"):
        load_script([bad])
    bad.write_text(
        '[[scenario]]\nname = "two"\nmatch = "x"\n[[scenario.reply]]\nexec = "a"\nfail = "b"\n'
    )
    with pytest.raises(ScenarioError, match="a reply does one of"):
        load_script([bad])


def test_the_builtin_script_loads_with_a_fallback() -> None:
    script = load_script()
    assert script.fallback.name == "fallback"
    assert script.choose("please TAKE YOUR TIME").name == "slow"
    assert script.choose("something else").name == "fallback"
