"""The in-process convergence fuzz: real consumers and services, a simulated network.

Each simulated socket runs the real `CanvasConsumer` (handlers, visibility
filtering, catch-up, the real services and selectors on the test database); only
the wire and the channel layer are simulated, so a seeded driver decides, one
message at a time, what happens next:

- every socket has a client->server and a server->client queue (FIFO, like TCP)
  and an inbox of channel-layer messages (delivered in random order: two server
  processes publish independently, so revision order is not preserved);
- the driver interleaves deliveries across sockets at random, so ops from
  different clients reach the server in any order;
- after each op a client disconnects with p = 1/6: both queues and its layer
  inbox are dropped (in-flight ops, acks and changes are lost); disconnected
  clients keep editing (offline edits) and reconnect at random;
- clients resend ops with ids the server has already seen (duplicates);
- a fraction of broadcasts is dropped on the layer (at-most-once delivery);
- the owner occasionally changes another member's role (a resync for them).

At the end everyone reconnects and every queue is flushed; then the
invariants of `canvasweb.testing.invariants` must hold. A failure carries the
seed and the full trace (every op with its id, every delivery and drop).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import random
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer

from .invariants import check_canvas, client_report
from .opgen import OpGenerator
from .sync_client import SyncClient

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractUser

    from canvasweb.canvases.realtime.consumers import CanvasConsumer


class LayerDown(ConnectionError):
    pass


class SimLayer:
    """A channel layer whose deliveries the driver controls."""

    extensions = ["groups", "flush"]

    def __init__(self, network: SimNetwork):
        self.network = network
        self.groups: dict[str, dict[str, bool]] = {}
        self._names = itertools.count(1)
        self.down = False

    async def new_channel(self, prefix: str = "specific.") -> str:
        return f"{prefix}sim!{next(self._names)}"

    def _check(self) -> None:
        if self.down:
            raise LayerDown("simulated channel layer outage")

    async def send(self, channel: str, message: dict) -> None:
        self._check()
        self.network.layer_deliver(channel, copy.deepcopy(message))

    async def group_add(self, group: str, channel: str) -> None:
        self._check()
        self.groups.setdefault(group, {})[channel] = True

    async def group_discard(self, group: str, channel: str) -> None:
        self._check()
        self.groups.get(group, {}).pop(channel, None)

    async def group_send(self, group: str, message: dict) -> None:
        self._check()
        for channel in list(self.groups.get(group, {})):
            self.network.layer_deliver(channel, copy.deepcopy(message))

    async def receive(self, channel: str):  # pragma: no cover - the driver dispatches directly
        raise NotImplementedError

    async def flush(self) -> None:
        self.groups.clear()


class SimSocket:
    """One WebSocket: a real consumer on the server side, a transport for a SyncClient."""

    def __init__(self, network: SimNetwork, client: SyncClient, user):
        self.network = network
        self.client = client
        self.user = user
        self.to_server: deque[str] = deque()
        self.to_client: deque[dict] = deque()
        self.inbox: list[dict] = []
        self.consumer: CanvasConsumer | None = None
        self.accepted = False
        self.open = False

    # transport interface for the SyncClient
    def send(self, frame: dict) -> None:
        if self.open:
            self.to_server.append(json.dumps(frame))

    async def _server_send(self, message: dict) -> None:
        kind = message["type"]
        if kind == "websocket.accept":
            self.accepted = True
        elif kind == "websocket.send":
            self.to_client.append(json.loads(message["text"]))
        elif kind == "websocket.close":
            self.to_client.append({"type": "__close__", "code": message.get("code", 1000)})

    async def connect(self) -> bool:
        from canvasweb.canvases.realtime.consumers import CanvasConsumer

        consumer = CanvasConsumer()
        consumer.scope = {
            "type": "websocket",
            "path": f"/ws/canvases/{self.network.canvas_id}/",
            "user": self.user,
            "headers": [],
            "url_route": {"args": (), "kwargs": {"canvas_id": self.network.canvas_id}},
        }
        consumer.channel_layer = self.network.layer
        consumer.channel_name = await self.network.layer.new_channel()
        consumer.base_send = self._server_send
        self.consumer = consumer
        self.network.sockets_by_channel[consumer.channel_name] = self
        await self._dispatch({"type": "websocket.connect"})
        if not self.accepted:
            await self.teardown(code=1006)
            return False
        self.open = True
        self.client.attach(self)
        return True

    async def _dispatch(self, message: dict) -> None:
        if self.consumer is None:
            raise RuntimeError("the socket has no consumer (not connected)")
        try:
            await self.consumer.dispatch(message)
        except StopConsumer:
            pass

    async def teardown(self, *, code: int = 1006) -> None:
        """The TCP connection is gone: whatever was in flight is lost."""
        was_open = self.open
        self.open = False
        self.to_server.clear()
        self.to_client.clear()
        self.inbox.clear()
        if self.consumer is not None:
            self.network.sockets_by_channel.pop(self.consumer.channel_name, None)
            await self._dispatch({"type": "websocket.disconnect", "code": code})
            self.consumer = None
        if was_open:
            self.client.detach(code)

    # one step each
    async def deliver_to_server(self) -> None:
        text = self.to_server.popleft()
        await self._dispatch({"type": "websocket.receive", "text": text})
        idle = getattr(self.consumer, "ops_idle", None)
        if idle is not None:  # ops are applied by the consumer's op worker: finish this one now
            await idle()

    async def deliver_to_client(self) -> bool:
        frame = self.to_client.popleft()
        if frame.get("type") == "__close__":
            await self.teardown(code=frame["code"])
            return False
        self.client.handle(frame)
        return True

    async def deliver_layer(self, rng: random.Random, reorder: float) -> None:
        index = rng.randrange(len(self.inbox)) if rng.random() < reorder else 0
        message = self.inbox.pop(index)
        await self._dispatch(message)

    def busy(self) -> bool:
        return bool(self.to_server or self.to_client or self.inbox)


@dataclass
class SimClient:
    client: SyncClient
    user: AbstractUser
    role: str
    generator: OpGenerator
    socket: SimSocket | None = None
    ops_done: int = 0


@dataclass
class FuzzConfig:
    clients: int
    ops_per_client: int = 200
    disconnect_probability: float = 1 / 6
    reconnect_probability: float = 0.3
    layer_drop_probability: float = 0.03
    layer_reorder_probability: float = 0.3
    duplicate_probability: float = 0.03
    role_change_probability: float = 0.004
    deliver_probability: float = 0.55
    viewer: bool = True
    second_tab: bool = True


@dataclass
class FuzzResult:
    seed: int
    problems: list[str]
    figures: dict
    stats: Counter
    trace: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class SimNetwork:
    def __init__(self, seed: int, config: FuzzConfig, *, canvas_id: int, users: dict, roles: list[str]):
        self.seed = seed
        self.rng = random.Random(seed)
        self.config = config
        self.canvas_id = canvas_id
        self.layer = SimLayer(self)
        self.sockets_by_channel: dict[str, SimSocket] = {}
        self.trace: list[str] = []
        self.stats: Counter = Counter()
        self.users = users
        self.roles = roles
        self.clients: list[SimClient] = []

    # --- layer hooks -----------------------------------------------------------------

    def layer_deliver(self, channel: str, message: dict) -> None:
        socket = self.sockets_by_channel.get(channel)
        if socket is None:
            return
        kind = message.get("type")
        if (
            kind in ("canvas.change", "canvas.changes")
            and self.rng.random() < self.config.layer_drop_probability
        ):
            events = [message["event"]] if kind == "canvas.change" else message["events"]
            self.stats["layer_drops"] += 1
            revisions = ",".join(f"r{event['revision']}" for event in events)
            self.trace.append(f"layer drops {revisions} for {socket.client.name}")
            return
        socket.inbox.append(message)

    # --- driver ------------------------------------------------------------------------

    def log(self, text: str) -> None:
        self.trace.append(text)

    async def connect(self, sim: SimClient) -> None:
        socket = SimSocket(self, sim.client, sim.user)
        ok = await socket.connect()
        self.stats["connects" if ok else "refused_connects"] += 1
        self.log(f"{sim.client.name} connect -> {'open' if ok else 'refused'} (R={sim.client.revision})")
        sim.socket = socket if ok else None

    async def disconnect(self, sim: SimClient) -> None:
        if sim.socket is None:
            return
        lost = len(sim.socket.to_server) + len(sim.socket.to_client) + len(sim.socket.inbox)
        self.stats["disconnects"] += 1
        self.stats["lost_in_flight"] += lost
        self.log(f"{sim.client.name} disconnect (lost {lost} in flight)")
        await sim.socket.teardown(code=1006)
        sim.socket = None

    def live_sockets(self) -> list[SimSocket]:
        return [s.socket for s in self.clients if s.socket is not None and s.socket.open]

    async def deliver_one(self) -> bool:
        options = []
        for socket in self.live_sockets():
            if socket.to_server:
                options.append((socket, "up"))
            if socket.to_client:
                options.append((socket, "down"))
            if socket.inbox:
                options.append((socket, "layer"))
        if not options:
            return False
        socket, direction = self.rng.choice(options)
        name = socket.client.name
        if direction == "up":
            frame = json.loads(socket.to_server[0])
            self.log(
                f"{name} -> server {frame.get('type')} {frame.get('client_op_id', frame.get('since', ''))}"
            )
            await socket.deliver_to_server()
        elif direction == "down":
            frame = socket.to_client[0]
            self.log(
                f"server -> {name} {frame.get('type')} r{frame.get('revision', frame.get('to', ''))} "
                f"{frame.get('client_op_id') or ''}"
            )
            alive = await socket.deliver_to_client()
            if not alive:
                for sim in self.clients:
                    if sim.socket is socket:
                        sim.socket = None
        else:
            message = socket.inbox[0]
            self.log(f"layer -> {name} {message.get('type')} r{message.get('event', {}).get('revision', '')}")
            await socket.deliver_layer(self.rng, self.config.layer_reorder_probability)
        self.stats[f"deliver_{direction}"] += 1
        return True

    async def client_op(self, sim: SimClient) -> None:
        op = sim.generator.op(sim.client, sim.role)
        cid = sim.client.submit(op)
        sim.ops_done += 1
        self.stats["ops"] += 1
        self.log(f"{sim.client.name} submits {cid} {'' if sim.socket else '(offline) '}{json.dumps(op)}")

    async def change_role(self) -> None:
        from canvasweb.canvases import services
        from canvasweb.canvases.actors import user_actor

        candidates = [s for s in self.clients if s.role in ("editor", "viewer")]
        if not candidates:
            return
        sim = self.rng.choice(candidates)
        new_role = "viewer" if sim.role == "editor" else "editor"
        owner = self.users["owner"]
        await database_sync_to_async(services.member_set)(
            actor=user_actor(owner), canvas_id=self.canvas_id, user_id=sim.user.pk, role=new_role
        )
        for other in self.clients:
            if other.user.pk == sim.user.pk:
                other.role = new_role
        self.stats["role_changes"] += 1
        self.log(f"owner makes {sim.user.username} {new_role}")

    async def run(self) -> FuzzResult:
        config, rng = self.config, self.rng
        for sim in self.clients:
            await self.connect(sim)
        while any(s.ops_done < config.ops_per_client for s in self.clients):
            roll = rng.random()
            if roll < config.deliver_probability and await self.deliver_one():
                continue
            if roll < config.deliver_probability + config.duplicate_probability:
                sim = rng.choice(self.clients)
                if sim.socket is not None and sim.client.sent_ops:
                    cid = rng.choice(sorted(sim.client.sent_ops))
                    self.log(f"{sim.client.name} resends {cid} (duplicate)")
                    sim.client.resend(cid)
                continue
            if rng.random() < config.role_change_probability:
                await self.change_role()
                continue
            active = [s for s in self.clients if s.ops_done < config.ops_per_client]
            sim = rng.choice(active)
            if sim.socket is None:
                if rng.random() < config.reconnect_probability:
                    await self.connect(sim)
                    continue
            await self.client_op(sim)
            if sim.socket is not None and rng.random() < config.disconnect_probability:
                await self.disconnect(sim)
            if rng.random() < 0.02:
                await self.sync_check_one()
            if rng.random() < 0.02:
                ticked = rng.choice(self.clients)
                ticked.client.tick(force=True)
        await self.settle()
        return await self.check()

    async def sync_check_one(self) -> None:
        sockets = self.live_sockets()
        if not sockets:
            return
        socket = self.rng.choice(sockets)
        check = getattr(socket.consumer, "sync_check", None)
        if check is not None:
            self.log(f"server sync check for {socket.client.name}")
            await check()

    async def settle(self, max_rounds: int = 60) -> None:
        """Everyone reconnects; every queue drains; timers fire; repeat until quiet."""
        self.log("--- settle")
        for _ in range(max_rounds):
            for sim in self.clients:
                if sim.socket is None:
                    await self.connect(sim)
            steps = 0
            while await self.deliver_one():
                steps += 1
                if steps > 200_000:
                    raise RuntimeError("the network never drained")
            quiet = True
            for socket in self.live_sockets():
                check = getattr(socket.consumer, "sync_check", None)
                if check is not None:
                    await check()
                    quiet = quiet and not socket.busy()
            for sim in self.clients:
                if sim.socket is not None:
                    sim.client.tick(force=True)
                    if sim.socket.busy():
                        quiet = False
            if (
                quiet
                and all(sim.client.settled for sim in self.clients if sim.socket is not None)
                and all(sim.socket is not None for sim in self.clients)
            ):
                return
        self.log("--- did not settle")

    async def check(self) -> FuzzResult:
        reports = [client_report(sim.client, user_id=sim.user.pk) for sim in self.clients]
        result = await database_sync_to_async(check_canvas)(self.canvas_id, reports)
        stats = Counter(self.stats)
        for sim in self.clients:
            for key in (
                "gap_events",
                "catch_ups",
                "snapshots",
                "resyncs",
                "duplicate_acks",
                "offline_ops",
                "duplicate_events",
                "duplicate_resends",
            ):
                stats[key] += sim.client.stats[key]
            for key, value in sim.client.stats.items():
                if key.startswith("reject:"):
                    stats[key] += value
        figures = dict(result["figures"])
        problems = list(result["problems"])
        if figures["nodes_created"] == 0:
            problems.append("vacuous run: no node was created")
        return FuzzResult(seed=self.seed, problems=problems, figures=figures, stats=stats, trace=self.trace)


_RUNS = itertools.count(1)


def _fast_sqlite(sender=None, connection=None, **kwargs) -> None:
    """The fuzz checks protocol logic, not disk durability: skip SQLite's fsync per commit."""
    if connection is not None and connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA synchronous=OFF")


@database_sync_to_async
def _setup(seed: int, roles: list[str]):
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.db.backends.signals import connection_created

    from canvasweb.canvases import services
    from canvasweb.canvases.actors import user_actor

    connection_created.connect(_fast_sqlite, dispatch_uid="canvasweb-sim-fast-sqlite")
    connection.ensure_connection()
    _fast_sqlite(connection=connection)
    User = get_user_model()
    users = {}
    tag = f"fz{seed}-{next(_RUNS)}"
    owner = User.objects.create_user(username=f"{tag}-owner", password="pass-12345")
    users["owner"] = owner
    canvas = services.canvas_create(user=owner, name=f"fuzz seed {seed}")
    for index, role in enumerate(roles):
        if role == "owner":
            continue
        user = User.objects.create_user(username=f"{tag}-{role}{index}", password="pass-12345")
        users[f"{role}{index}"] = user
        services.member_set(actor=user_actor(owner), canvas_id=canvas.pk, user_id=user.pk, role=role)
    return canvas.pk, users


@contextlib.asynccontextmanager
async def sim_network(
    seed: int, roles: list[str], *, config: FuzzConfig | None = None, second_tab: bool = False
):
    """A SimNetwork with one SimClient per role (the first must be "owner"), installed as the default layer.

    Not connected yet: `await net.connect(sim)` for each client (or `net.run()` for the fuzz).
    """
    config = config or FuzzConfig(clients=len(roles))
    canvas_id, users = await _setup(seed, roles)
    network = SimNetwork(seed, config, canvas_id=canvas_id, users=users, roles=roles)
    user_list = [users["owner"]] + [users[f"{role}{i}"] for i, role in enumerate(roles) if role != "owner"]
    for index, (user, role) in enumerate(zip(user_list, roles, strict=True)):
        network.clients.append(
            SimClient(
                client=SyncClient(f"c{index}-{role}", clock=lambda: 0.0),
                user=user,
                role=role,
                generator=OpGenerator(random.Random(seed * 1000 + index)),
            )
        )
    if second_tab:
        network.clients.append(
            SimClient(
                client=SyncClient(f"c{len(roles)}-editor-tab2", clock=lambda: 0.0),
                user=user_list[1],
                role=roles[1],
                generator=OpGenerator(random.Random(seed * 1000 + len(roles))),
            )
        )
    # Broadcasts from the services (transaction.on_commit) go through the default layer: make it ours.
    from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers

    previous = channel_layers.set(DEFAULT_CHANNEL_LAYER, network.layer)
    try:
        yield network
    finally:
        for sim in network.clients:
            if sim.socket is not None:
                await sim.socket.teardown(code=1000)
        if previous is None:
            channel_layers.backends.pop(DEFAULT_CHANNEL_LAYER, None)
        else:
            channel_layers.set(DEFAULT_CHANNEL_LAYER, previous)


async def run_seed(
    seed: int, *, clients: int | None = None, ops_per_client: int = 200, config: FuzzConfig | None = None
) -> FuzzResult:
    """One fuzz run: 2-8 clients (owner, editors, a viewer, a second tab), seeded."""
    rng = random.Random(seed * 7919 + 1)
    count = config.clients if config is not None else (clients or rng.randint(2, 8))
    config = config or FuzzConfig(clients=count, ops_per_client=ops_per_client)
    roles = ["owner"] + ["editor"] * (count - 1)
    if config.viewer and count >= 3:
        roles[-1] = "viewer"
    second_tab = config.second_tab and count >= 4
    if second_tab:
        roles = roles[:-1]  # the last client is a second tab of the first editor
    async with sim_network(seed, roles, config=config, second_tab=second_tab) as network:
        result = await network.run()
        result.figures["clients"] = len(network.clients)
    return result


def write_trace(result: FuzzResult, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"fuzz-seed-{result.seed}.txt"
    path.write_text(
        "\n".join([f"seed {result.seed}", "problems:", *result.problems, "", "trace:", *result.trace]),
        encoding="utf-8",
    )
    return path


def run_seed_sync(seed: int, **kwargs) -> FuzzResult:
    return asyncio.run(run_seed(seed, **kwargs))
