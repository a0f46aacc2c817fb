"""`manage.py seed_demo`: demo users and a bilingual demo canvas, written through the services.

Idempotent: users are created once (passwords reset only with --reset-passwords),
the canvas is found by name, and each write carries a fixed client_op_id so a
rerun applies nothing twice.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from canvasweb.canvases import selectors, services
from canvasweb.canvases.actors import user_actor

CANVAS_NAME = "Demo: launch plan / 发布计划"
CANVAS_DESCRIPTION = (
    "Demo canvas: configs, requirements, a superseded rule, an internal note and a secret. "
    "演示画布：配置、需求、被取代的规则、内部信息与机密。"
)
USERS = (("alice", "owner"), ("bob", "editor"), ("carol", "viewer"))

# key: (content, kind, x, y, extra fields)
NODES: dict[str, tuple[str, str, int, int, dict[str, Any]]] = {
    "goal": (
        "Goal: ship the public beta on 2026-12-15 — stable login, canvas sync, no data loss.\n"
        "目标：2026-12-15 发布公开测试版——登录稳定、画布同步、不丢数据。",
        "requirement",
        0,
        0,
        {"pinned": True, "weight": 3.0, "tags": ["goal", "anchor"]},
    ),
    "db_port": (
        "Database listens on port 5433 (not 5432): DATABASE_URL=postgres://app@db.internal:5433/launch",
        "config",
        -420,
        -220,
        {"weight": 2.0, "tags": ["db", "config"]},
    ),
    "postgres": (
        "Decision: PostgreSQL 16 behind pgbouncer; pgbouncer keeps port 5432.\n"
        "决定：使用 PostgreSQL 16，pgbouncer 占用 5432 端口。",
        "decision",
        -760,
        -220,
        {"tags": ["db"]},
    ),
    "jwt": (
        "JWT 过期时间为 15 分钟（refresh token 7 天）。\nJWT access tokens expire after 15 minutes.",
        "fact",
        420,
        -220,
        {"weight": 2.0, "tags": ["auth", "认证"]},
    ),
    "layout": (
        "Directory layout:\n"
        "  backend/   Django + Channels\n"
        "  frontend/  Vite + TypeScript (build → frontend/dist)\n"
        "  deploy/    Ansible playbooks\n"
        "  docs/      runbooks / 运维手册",
        "note",
        420,
        260,
        {"tags": ["repo"]},
    ),
    "deploy_old": ("Deploy on Fridays", "requirement", -420, 260, {"tags": ["deploy"]}),
    "secret": (
        "Staging DB password: hunter2-demo",
        "config",
        -760,
        120,
        {"sensitivity": "secret", "tags": ["db", "credentials"]},
    ),
    "internal": (
        "Internal: beta budget ¥200,000; vendor contract renews in January.\n"
        "内部信息：测试版预算 20 万元，供应商合同一月续签。",
        "fact",
        0,
        420,
        {"sensitivity": "internal", "tags": ["budget"]},
    ),
    "sso": (
        "Open question: do we need SSO for the beta? / 测试版需要单点登录吗？",
        "question",
        760,
        -220,
        {"tags": ["auth"]},
    ),
}
EDGES = (
    ("goal", "db_port", "depends_on", ""),
    ("goal", "jwt", "depends_on", ""),
    ("postgres", "db_port", "causes", "pgbouncer takes 5432"),
    ("secret", "db_port", "relates_to", "staging credentials"),
    ("internal", "goal", "relates_to", ""),
    ("sso", "jwt", "relates_to", "affects token lifetime"),
    ("layout", "goal", "relates_to", ""),
)
DEPLOY_NEW = "Never deploy on Fridays; deploy Tue–Thu only.\n周五不发布；只在周二至周四发布。"


class Command(BaseCommand):
    help = "Create demo users (alice owner, bob editor, carol viewer) and a bilingual demo canvas."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password", help="Password for new users (default: a random one per user).")
        parser.add_argument(
            "--reset-passwords",
            action="store_true",
            help="Also set the password of users that already exist.",
        )
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Base URL to print.")

    def handle(
        self,
        *args: Any,
        password: str | None = None,
        reset_passwords: bool = False,
        url: str = "http://127.0.0.1:8000/",
        **options: Any,
    ) -> None:
        if password is not None and len(password) < 8:
            raise CommandError("--password must be at least 8 characters")
        users: dict[str, User] = {}
        passwords: dict[str, str | None] = {}
        with transaction.atomic():
            for username, _role in USERS:
                users[username], passwords[username] = self._user(username, password, reset_passwords)
        canvas_id = self._canvas(users)
        revision = self._content(users["alice"], canvas_id)

        self.stdout.write(f"Demo canvas #{canvas_id} {CANVAS_NAME!r} at revision {revision}.")
        for username, role in USERS:
            shown = passwords[username] or "(unchanged; rerun with --reset-passwords to set a new one)"
            self.stdout.write(f"  {username:<6} {role:<7} password: {shown}")
        alice_password = passwords["alice"] or "<existing password>"
        self.stdout.write(self.style.SUCCESS(f"Log in at {url} as alice / {alice_password}"))

    # --- users --------------------------------------------------------------------------------

    def _user(self, username: str, password: str | None, reset: bool) -> tuple[User, str | None]:
        user = User.objects.filter(username=username).first()
        if user is not None and not reset:
            return user, None
        new_password = password or secrets.token_urlsafe(9)
        if user is None:
            user = User.objects.create_user(username=username, password=new_password)
        else:
            user.set_password(new_password)
            user.is_active = True
            user.save(update_fields=["password", "is_active"])
        return user, new_password

    # --- canvas, members ------------------------------------------------------------------------

    def _canvas(self, users: dict[str, User]) -> int:
        alice = users["alice"]
        existing = [
            c
            for c, role, _ in selectors.canvas_list_for_user(user=alice)
            if c.name == CANVAS_NAME and role == "owner"
        ]
        if existing:
            canvas_id = existing[0].pk
        else:
            canvas_id = services.canvas_create(
                user=alice, name=CANVAS_NAME, description=CANVAS_DESCRIPTION
            ).pk
        owner = user_actor(alice, channel="system")
        for username, role in USERS[1:]:
            services.member_set(actor=owner, canvas_id=canvas_id, username=username, role=role)
        return canvas_id

    # --- nodes and edges ------------------------------------------------------------------------

    def _content(self, alice: User, canvas_id: int) -> int:
        actor = user_actor(alice, channel="system")
        ids = {key: str(uuid.uuid4()) for key in NODES}
        ops: list[dict[str, Any]] = []
        for key, (content, kind, x, y, extra) in NODES.items():
            ops.append(
                {
                    "type": "node.create",
                    "node": {"id": ids[key], "content": content, "kind": kind, "x": x, "y": y, **extra},
                }
            )
        for source, target, relation, label in EDGES:
            ops.append(
                {
                    "type": "edge.create",
                    "edge": {
                        "source": ids[source],
                        "target": ids[target],
                        "relation": relation,
                        "label": label,
                    },
                }
            )
        result = services.apply_operation(
            actor=actor, canvas_id=canvas_id, op={"type": "batch", "ops": ops}, client_op_id="seed-demo:nodes"
        )
        if result.duplicate:
            # A rerun: the receipt holds the ids chosen the first time.
            by_content = {
                c["data"]["content"]: c["id"]
                for c in result.changes
                if c["entity"] == "node" and c["action"] == "created"
            }
            ids = {key: by_content[NODES[key][0]] for key in NODES}

        new_deploy = services.apply_operation(
            actor=actor,
            canvas_id=canvas_id,
            client_op_id="seed-demo:supersede",
            op={
                "type": "node.supersede",
                "id": ids["deploy_old"],
                "node": {
                    "content": DEPLOY_NEW,
                    "kind": "requirement",
                    "x": -420,
                    "y": 460,
                    "weight": 2.0,
                    "tags": ["deploy", "release"],
                },
            },
        )
        deploy_new_id = next(
            c["id"] for c in new_deploy.changes if c["entity"] == "node" and c["action"] == "created"
        )
        services.apply_operation(
            actor=actor,
            canvas_id=canvas_id,
            client_op_id="seed-demo:links",
            op={
                "type": "batch",
                "ops": [
                    {
                        "type": "edge.create",
                        "edge": {
                            "source": ids["goal"],
                            "target": deploy_new_id,
                            "relation": "depends_on",
                            "label": "release window",
                        },
                    },
                    {"type": "node.update", "id": ids["jwt"], "fields": {"weight": 2.5, "pinned": True}},
                ],
            },
        )
        canvas, _ = selectors.canvas_for_member(user=alice, canvas_id=canvas_id)
        return canvas.revision
