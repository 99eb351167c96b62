"""The fanout hands batches to every subscriber, in order, and ends them on close."""

from __future__ import annotations

import pytest

from engine.transport.fanout import Fanout

pytestmark = pytest.mark.anyio


async def test_every_subscriber_gets_every_item_in_order() -> None:
    fanout: Fanout[int] = Fanout()
    first, second = fanout.subscribe(), fanout.subscribe()
    for n in range(5):
        fanout.publish(n)
    fanout.flush()
    fanout.publish(5)
    fanout.close()
    assert [n async for n in first] == [0, 1, 2, 3, 4, 5]
    assert [n async for n in second] == [0, 1, 2, 3, 4, 5]


async def test_batches_keep_their_boundaries_and_the_rest_of_a_batch() -> None:
    fanout: Fanout[int] = Fanout()
    subscription = fanout.subscribe()
    fanout.publish(1)
    fanout.publish(2)
    fanout.flush()
    fanout.publish(3)
    fanout.flush()
    assert await anext(subscription) == 1
    assert await subscription.batches() == (2,)
    assert await subscription.batches() == (3,)


async def test_a_closed_subscriber_is_dropped_and_nothing_is_published_before_flush() -> None:
    fanout: Fanout[int] = Fanout()
    gone = fanout.subscribe()
    gone.close()
    kept = fanout.subscribe()
    fanout.publish(1)
    fanout.close()
    assert [n async for n in kept] == [1]
    late = fanout.subscribe()
    assert [n async for n in late] == []


async def test_what_has_come_is_taken_without_waiting() -> None:
    fanout: Fanout[int] = Fanout()
    subscription = fanout.subscribe()
    assert subscription.come() == ()
    for batch in ((1, 2), (3,)):
        for n in batch:
            fanout.publish(n)
        fanout.flush()
    assert await anext(subscription) == 1
    assert subscription.come() == (2, 3)  # the rest of a batch and the batches after it
    fanout.close()
    assert subscription.come() == ()
