"""The per-canvas hash chain over change log entries (tamper evidence)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

CHAINED_FIELDS = (
    "canvas_id",
    "revision",
    "seq",
    "op_type",
    "entity",
    "action",
    "target_id",
    "fields",
    "before",
    "after",
    "visibility_before",
    "visibility_after",
    "actor_kind",
    "actor_user_id",
    "actor_username",
    "approved_by_id",
    "conversation_id",
    "message_id",
    "agent_run_id",
    "reason",
    "client_op_id",
)


def entry_payload(entry: Any) -> dict:
    payload = {name: getattr(entry, name) for name in CHAINED_FIELDS}
    payload["created_at"] = entry.created_at.isoformat()
    return payload


def entry_digest(entry: Any, prev_hash: str) -> str:
    canonical = json.dumps(
        entry_payload(entry), sort_keys=True, ensure_ascii=False, cls=DjangoJSONEncoder, separators=(",", ":")
    )
    return hashlib.sha256((prev_hash + "\n" + canonical).encode("utf-8")).hexdigest()
