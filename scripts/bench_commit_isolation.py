"""Does other sockets' database work on Channels' shared thread delay an editor's acks? (issue 13, stop 37)

Run from the checkout, against a throwaway database (it migrates it):

    PYTHONPATH=. DATABASE_URL=postgres://postgres@127.0.0.1:5432/iso .venv/bin/python \
        scripts/bench_commit_isolation.py var/bench/isolation.json
    PYTHONPATH=. CANVASWEB_SQLITE_PATH=/tmp/iso.sqlite3 .venv/bin/python scripts/bench_commit_isolation.py out.json

Settings by environment: ISO_NODES (2000), ISO_SECONDS per phase (8), ISO_READERS (2), ISO_ROUNDS (3).

One process, the real ASGI app, in-memory channel layer. Canvas A: an editor sends node.move in a
closed loop (next op 20 ms after the ack) and we time each ack. Canvas B (N nodes): `readers`
clients each send `hello` with no revision (a full snapshot, read on Channels' shared database
thread) again and again, as reconnecting clients do. Phases alternate GROUP_COMMIT_THREADS 0 (commit
on the shared thread, the old code path) and 1 (own commit thread), with and without readers.
Prints one JSON row per phase (ack p50/p90/p99/max in ms, snapshots per second) and writes them all.
"""

import asyncio
import json
import os
import statistics
import sys
import time
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canvasweb.config.settings")
django.setup()

from channels.db import database_sync_to_async  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from canvasweb.bench.socket_clients import join, move_loop  # noqa: E402
from canvasweb.canvases import services  # noqa: E402
from canvasweb.canvases.actors import user_actor  # noqa: E402
from canvasweb.config.asgi import application  # noqa: E402

NODES = int(os.environ.get("ISO_NODES", "2000"))
SECONDS = float(os.environ.get("ISO_SECONDS", "8"))
READERS = int(os.environ.get("ISO_READERS", "2"))
ROUNDS = int(os.environ.get("ISO_ROUNDS", "3"))


def setup():
    call_command("migrate", "--noinput", "-v", "0")
    user = get_user_model().objects.create_user(username=f"iso-{uuid.uuid4().hex[:8]}", password=None)
    token = Token.objects.get_or_create(user=user)[0].key
    a = services.canvas_create(user=user, name="edits")
    b = services.canvas_create(user=user, name="big")
    actor = user_actor(user)
    node = services.apply_operation(
        actor=actor, canvas_id=a.pk, op={"type": "node.create", "node": {"content": "moving", "x": 0, "y": 0}}
    ).changes[0]["id"]
    for start in range(0, NODES, 200):
        reqs = [
            services.OpRequest(
                actor=actor,
                op={"type": "node.create", "node": {"content": f"node {i} " + "word " * 20, "x": i, "y": 0}},
            )
            for i in range(start, min(NODES, start + 200))
        ]
        services.apply_operations(canvas_id=b.pk, requests=reqs)
    return token, a.pk, b.pk, node


async def phase(token, a, b, node, readers):
    editor = await join(application, token, a)
    others = [await join(application, token, b) for _ in range(readers)]
    stop = False
    snapshots = 0

    async def read_loop(ws):
        nonlocal snapshots
        while not stop:
            await ws.send_json_to({"type": "hello", "last_revision": None})
            await ws.receive_json_from(30)  # welcome
            await ws.receive_json_from(30)  # snapshot
            snapshots += 1

    tasks = [asyncio.ensure_future(read_loop(ws)) for ws in others]
    await asyncio.sleep(0.3)
    lat = await move_loop(editor, node, deadline=time.monotonic() + SECONDS)
    stop = True
    await asyncio.gather(*tasks)
    for ws in [editor, *others]:
        await ws.disconnect()
    lat.sort()
    return {
        "ops": len(lat),
        "p50": round(statistics.median(lat), 2),
        "p90": round(lat[int(0.9 * (len(lat) - 1))], 2),
        "p99": round(lat[int(0.99 * (len(lat) - 1))], 2),
        "max": round(lat[-1], 1),
        "snapshots_per_s": round(snapshots / SECONDS, 1),
    }


def main():
    token, a, b, node = asyncio.run(database_sync_to_async(setup)())
    saved = settings.CANVASWEB
    out = []
    for r in range(ROUNDS):
        for threads in (0, 1):
            for readers in (0, READERS):
                settings.CANVASWEB = {**saved, "GROUP_COMMIT_THREADS": threads}
                row = asyncio.run(phase(token, a, b, node, readers))
                row.update(round=r, threads=threads, readers=readers)
                print(json.dumps(row), flush=True)
                out.append(row)
    settings.CANVASWEB = saved
    with open(sys.argv[1], "w") as handle:
        json.dump(out, handle, indent=1)


if __name__ == "__main__":
    main()
