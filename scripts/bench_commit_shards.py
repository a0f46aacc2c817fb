"""Two busy canvases in one process: do two commit threads commit more than one? (issue 13, stop 37)

Two canvases, SH_EDITORS (4) editors each sending node.move in a closed loop (next op on the ack) for
SH_SECONDS (6); total ops/s with GROUP_COMMIT_THREADS 1 (both canvases on one commit thread) and 2
(one each), alternating for SH_ROUNDS (3). One process, the real ASGI app, in-memory layer. Run from
the checkout against a throwaway database (it migrates it), with the per-socket rate limit raised:

    CANVASWEB_WS_OPS_PER_SECOND=1000 PYTHONPATH=. DATABASE_URL=postgres://postgres@127.0.0.1:5432/shards \
        .venv/bin/python scripts/bench_commit_shards.py out.json
"""

import asyncio
import json
import os
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

EDITORS = int(os.environ.get("SH_EDITORS", "4"))
SECONDS = float(os.environ.get("SH_SECONDS", "6"))
ROUNDS = int(os.environ.get("SH_ROUNDS", "3"))


def setup():
    call_command("migrate", "--noinput", "-v", "0")
    user = get_user_model().objects.create_user(username=f"sh-{uuid.uuid4().hex[:8]}", password=None)
    token = Token.objects.get_or_create(user=user)[0].key
    out = []
    for name in ("one", "two"):
        c = services.canvas_create(user=user, name=name)
        nodes = [
            services.apply_operation(
                actor=user_actor(user),
                canvas_id=c.pk,
                op={"type": "node.create", "node": {"content": f"n{i}", "x": 0, "y": 0}},
            ).changes[0]["id"]
            for i in range(EDITORS)
        ]
        out.append((c.pk, nodes))
    return token, out


async def phase(token, canvases):
    socks = []
    for cid, nodes in canvases:
        for n in nodes:
            socks.append((await join(application, token, cid), n))
    deadline = time.monotonic() + SECONDS
    counts = []

    async def loop(ws, node):
        counts.append(len(await move_loop(ws, node, deadline=deadline, pause=0)))

    t0 = time.monotonic()
    await asyncio.gather(*(loop(ws, n) for ws, n in socks))
    el = time.monotonic() - t0
    for ws, _ in socks:
        await ws.disconnect()
    return round(sum(counts) / el, 1)


def main():
    token, canvases = asyncio.run(database_sync_to_async(setup)())
    assert canvases[0][0] % 2 != canvases[1][0] % 2  # with 2 threads, one canvas on each
    saved = settings.CANVASWEB
    rows = []
    for r in range(ROUNDS):
        for threads in (1, 2):
            settings.CANVASWEB = {**saved, "GROUP_COMMIT_THREADS": threads}
            ops = asyncio.run(phase(token, canvases))
            row = {"round": r, "threads": threads, "ops_per_s": ops}
            print(json.dumps(row), flush=True)
            rows.append(row)
    with open(sys.argv[1], "w") as handle:
        json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
