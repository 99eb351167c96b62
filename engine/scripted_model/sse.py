"""Server-sent events of the OpenAI Responses API, as codex reads them."""

from __future__ import annotations

import json
from typing import Any

Event = dict[str, Any]


def encode(event: Event) -> bytes:
    """One SSE frame."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def created(response_id: str) -> Event:
    return {"type": "response.created", "response": {"id": response_id}}


def completed(response_id: str, input_tokens: int, output_tokens: int) -> Event:
    return {
        "type": "response.completed",
        "response": {
            "id": response_id,
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": None,
                "output_tokens": output_tokens,
                "output_tokens_details": None,
                "total_tokens": input_tokens + output_tokens,
            },
        },
    }


def failed(response_id: str, message: str) -> Event:
    return {
        "type": "response.failed",
        "response": {
            "id": response_id,
            "status": "failed",
            "error": {"code": "server_error", "message": message},
        },
    }


def _named(item_id: str | None, fields: Event) -> Event:
    """`fields` with the item's id, if it has one (some providers send none)."""
    return fields if item_id is None else {**fields, "id": item_id}


def _message(item_id: str | None, text: str) -> Event:
    return _named(
        item_id,
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        },
    )


def message_added(item_id: str | None) -> Event:
    return {"type": "response.output_item.added", "item": _message(item_id, "")}


def text_delta(item_id: str | None, delta: str) -> Event:
    return {"type": "response.output_text.delta", "item_id": item_id or "", "delta": delta}


def message_done(item_id: str | None, text: str) -> Event:
    return {"type": "response.output_item.done", "item": _message(item_id, text)}


def reasoning_added(item_id: str | None) -> Event:
    return {
        "type": "response.output_item.added",
        "item": _named(item_id, {"type": "reasoning", "summary": []}),
    }


def reasoning_delta(item_id: str | None, delta: str) -> Event:
    return {
        "type": "response.reasoning_summary_text.delta",
        "item_id": item_id or "",
        "delta": delta,
        "summary_index": 0,
    }


def reasoning_done(item_id: str | None, summary: str) -> Event:
    return {
        "type": "response.output_item.done",
        "item": _named(
            item_id, {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}]}
        ),
    }


def function_call(
    call_id: str, name: str, arguments: dict[str, Any], namespace: str | None = None
) -> Event:
    """A call of one of codex's tools (one of a namespace's, as an MCP server's, with it)."""
    item: dict[str, Any] = {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }
    if namespace is not None:
        item["namespace"] = namespace
    return {"type": "response.output_item.done", "item": item}
