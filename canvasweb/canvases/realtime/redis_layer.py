"""channels_redis's layer, except that a group message is not written back to the channel it came from.

A batch committed in this process has already reached this process's sockets through their relay
(realtime/local_fanout.py) and carries the relay's channel as `origin`. The stock layer would still
push it to that channel (one Lua call) and this process would pop it again (a cleanup script, the
blocking pop, the backup ZADD and ZPOPMIN) and unpack it, only for the relay to skip it: six of the
eight Redis round trips of a batch when one process holds the canvas's sockets. Here the group's
other members get it as before; messages without an `origin` are untouched.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer


class OriginSkippingRedisChannelLayer(RedisChannelLayer):
    def _map_channel_keys_to_connection(self, channel_names: list[str], message: dict[str, Any]) -> Any:
        # Called by group_send with the group's members (channels_redis 4.3); none left: nothing sent.
        origin = message.get("origin")
        if origin is not None:
            channel_names = [name for name in channel_names if name != origin]
        return super()._map_channel_keys_to_connection(channel_names, message)
