"""Hypothesis: the rpc reader survives any bytes, in any chunking, and keeps valid messages."""

from __future__ import annotations

import json
from itertools import pairwise

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.transport.rpc import BadLine, Incoming, Notification, RpcConnection, ServerRequest
from tests.engine.bytestreams import byte_pipe
from tests.reliability.report import Ledger

garbage_line = st.binary(max_size=300).map(lambda data: data.replace(b"\n", b" "))
valid_line = st.integers(min_value=0, max_value=10**6).map(
    lambda n: json.dumps({"method": "valid", "params": {"n": n}}).encode()
)
lines = st.lists(st.one_of(garbage_line, valid_line), max_size=40)


def expected_valid(stream: list[bytes]) -> list[int]:
    found = []
    for line in stream:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("method") == "valid":
            found.append(message["params"]["n"])
    return found


async def feed(stream: list[bytes], cuts: list[int], max_line_bytes: int) -> list[Incoming]:
    to_client, client_in = byte_pipe()
    client_out, _ = byte_pipe()
    rpc = RpcConnection(client_out, client_in, max_line_bytes=max_line_bytes)
    events = rpc.subscribe()
    data = b"\n".join(stream) + b"\n"
    positions = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(rpc.run)
        for start, end in pairwise(positions):
            await to_client.send(data[start:end])
        await to_client.aclose()
    return [item async for item in events]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(stream=lines, cuts=st.lists(st.integers(min_value=0), max_size=20))
def test_valid_messages_survive_garbage_and_any_split(
    stream: list[bytes], cuts: list[int], tally: Ledger
) -> None:
    with tally.counting("input", "rpc framing: garbage between messages, any split, line limits"):
        received = anyio.run(feed, stream, cuts, 1 << 20)
    notifications = [item for item in received if isinstance(item, Notification)]
    valid = [n.value()["n"] for n in notifications if n.method == "valid"]
    assert valid == expected_valid(stream)
    assert all(isinstance(item, Notification | ServerRequest | BadLine) for item in received)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(stream=lines, cuts=st.lists(st.integers(min_value=0), max_size=20))
def test_a_small_line_limit_never_stops_the_reader(
    stream: list[bytes], cuts: list[int], tally: Ledger
) -> None:
    with tally.counting("input", "rpc framing: garbage between messages, any split, line limits"):
        received = anyio.run(feed, stream, cuts, 40)
    valid = [
        i.value()["n"] for i in received if isinstance(i, Notification) and i.method == "valid"
    ]
    short_enough = [line for line in stream if len(line) <= 40]
    assert valid == expected_valid(short_enough)
