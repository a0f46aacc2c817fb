"""Build test data inside a server's own database (for subprocess clusters)."""

from __future__ import annotations

import json

SETUP_SCRIPT = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
spec = json.loads('''{spec}''')
User = get_user_model()
out = {{"tokens": {{}}, "users": {{}}}}
for name in spec["users"]:
    user, _ = User.objects.get_or_create(username=name)
    user.set_password(spec.get("password", "pass-12345"))
    user.save()
    out["tokens"][name] = Token.objects.get_or_create(user=user)[0].key
    out["users"][name] = user.pk
owner = User.objects.get(username=spec["owner"])
canvas = services.canvas_create(user=owner, name=spec.get("name", "cluster canvas"))
for name, role in spec.get("members", {{}}).items():
    services.member_set(actor=user_actor(owner), canvas_id=canvas.pk, username=name, role=role)
out["canvas_id"] = canvas.pk
print("SETUP-JSON" + json.dumps(out))
"""


def setup_canvas_in(
    cluster,
    *,
    users: list[str],
    owner: str,
    members: dict[str, str] | None = None,
    name: str = "cluster canvas",
    password: str = "pass-12345",
) -> dict:
    """Create users (with API tokens) and a canvas in the cluster's database; returns ids and tokens."""
    spec = json.dumps(
        {"users": users, "owner": owner, "members": members or {}, "name": name, "password": password}
    )
    output = cluster.manage("shell", "-c", SETUP_SCRIPT.format(spec=spec))
    line = next(line for line in output.splitlines() if line.startswith("SETUP-JSON"))
    return json.loads(line[len("SETUP-JSON") :])
