"""An in-memory channel layer that can be switched into an outage (for consumer resilience tests).

    CHANNEL_LAYERS = {"default": {"BACKEND": "canvasweb.testing.flaky_layer.FlakyLayer"}}
    FlakyLayer.down = True   # every call raises ConnectionError, as channels_redis does when Redis is gone
    FlakyLayer.flush_groups()  # what FLUSHALL / a Redis restart does to group memberships

`FlakyLayer.dropped` counts messages a group_send could not deliver while down.
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer

POISON = "flaky.poison"


class FlakyLayer(InMemoryChannelLayer):
    down = False
    instances: list[FlakyLayer] = []
    failures = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        FlakyLayer.instances.append(self)

    def _check(self) -> None:
        if FlakyLayer.down:
            FlakyLayer.failures += 1
            raise ConnectionError("simulated channel layer outage (Redis unreachable)")

    async def send(self, channel, message):
        self._check()
        return await super().send(channel, message)

    async def receive(self, channel):
        self._check()
        message = await super().receive(channel)
        if message.get("type") == POISON:
            FlakyLayer.failures += 1
            raise ConnectionError("simulated channel layer outage (connection lost while receiving)")
        return message

    async def group_add(self, group, channel):
        self._check()
        return await super().group_add(group, channel)

    async def group_discard(self, group, channel):
        self._check()
        return await super().group_discard(group, channel)

    async def group_send(self, group, message):
        self._check()
        return await super().group_send(group, message)

    @classmethod
    def go_down(cls) -> None:
        """Start an outage: new calls raise, and receives already waiting fail too (as a dropped socket)."""
        cls.down = True
        for layer in cls.instances:
            for queue in list(layer.channels.values()):
                queue.put_nowait((time.time() + 60, {"type": POISON}))

    @classmethod
    def flush_groups(cls) -> None:
        for layer in cls.instances:
            layer.groups.clear()

    @classmethod
    def reset(cls) -> None:
        cls.down = False
        cls.failures = 0
        cls.instances = []
