"""Parse and validate canvas operations (the JSON shapes in docs/protocol.md).

Parsing is strict on purpose: the same parser guards REST, WebSocket and the
agent's tool calls, so unknown fields, wrong types, NaN and out-of-range
values are rejected here with the offending field named. Checks that need the
database (does the node exist, is it visible) live in the services.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import models

from canvasweb.common.errors import InvalidOperation
from canvasweb.common.ids import canonical_uuid
from canvasweb.common.json_safety import finite_float, require_storable_text

from .models import NodeKind, Relation, Sensitivity

COORDINATE_LIMIT = 1_000_000.0
MAX_CONTENT_CHARS = 10_000
MIN_WEIGHT, MAX_WEIGHT = 0.1, 10.0
MAX_TAGS, MAX_TAG_CHARS = 20, 40
MAX_LABEL_CHARS = 200
MAX_BATCH_OPS = 500

NODE_TYPES = ("node.create", "node.update", "node.move", "node.delete", "node.supersede", "node.archive")
EDGE_TYPES = ("edge.create", "edge.update", "edge.delete")
OP_TYPES = NODE_TYPES + EDGE_TYPES + ("batch",)

NODE_FIELDS = ("content", "kind", "x", "y", "weight", "tags", "pinned", "sensitivity")
EDGE_FIELDS = ("relation", "label")


@dataclass(frozen=True)
class Operation:
    type: str
    target_id: uuid.UUID | None = None
    # node.update / edge.update fields, node.move x/y, node.archive flag
    fields: dict[str, Any] = field(default_factory=dict)
    # node.create / node.supersede body (validated, defaults filled) or edge.create body
    body: dict[str, Any] = field(default_factory=dict)
    ops: tuple[Operation, ...] = ()
    # node.update: the node version the edit started from (None: last writer wins)
    base_version: int | None = None

    @property
    def target(self) -> uuid.UUID:
        """The id a single node/edge op addresses (every parser of such an op sets it)."""
        if self.target_id is None:
            raise InvalidOperation("id is required", field="id")
        return self.target_id

    @property
    def is_batch(self) -> bool:
        return self.type == "batch"

    def flat(self) -> tuple[Operation, ...]:
        return self.ops if self.is_batch else (self,)


def parse_operation(raw: Any, *, max_batch_ops: int = MAX_BATCH_OPS, _nested: bool = False) -> Operation:
    if not isinstance(raw, dict):
        raise InvalidOperation("an operation must be a JSON object", field="op")
    op_type = raw.get("type")
    if op_type not in OP_TYPES:
        raise InvalidOperation(
            f"unknown operation type {op_type!r}; expected one of {', '.join(OP_TYPES)}", field="type"
        )
    if op_type == "batch":
        if _nested:
            raise InvalidOperation("a batch cannot contain another batch", field="ops")
        _only_keys(raw, {"type", "ops"}, prefix="")
        ops = raw.get("ops")
        if not isinstance(ops, list) or not ops:
            raise InvalidOperation("batch.ops must be a non-empty list", field="ops")
        if len(ops) > max_batch_ops:
            raise InvalidOperation(f"a batch holds at most {max_batch_ops} operations", field="ops")
        parsed = []
        for index, item in enumerate(ops):
            try:
                parsed.append(parse_operation(item, _nested=True))
            except InvalidOperation as exc:
                raise InvalidOperation(
                    f"ops[{index}]: {exc.message}", field=f"ops[{index}].{exc.field}"
                ) from None
        return Operation(type="batch", ops=tuple(parsed))
    return _PARSERS[op_type](raw)


# --- per-type parsers -------------------------------------------------------


def _parse_node_create(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "node"}, prefix="")
    return Operation(type="node.create", body=parse_node_body(raw.get("node"), prefix="node."))


def _parse_node_update(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id", "fields", "base_version"}, prefix="")
    fields = raw.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise InvalidOperation("fields must be a non-empty object", field="fields")
    _only_keys(fields, set(NODE_FIELDS), prefix="fields.")
    clean = {name: _NODE_FIELD_VALIDATORS[name](value, f"fields.{name}") for name, value in fields.items()}
    return Operation(
        type="node.update",
        target_id=_uuid(raw.get("id"), "id"),
        fields=clean,
        base_version=_base_version(raw.get("base_version")),
    )


def _parse_node_move(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id", "x", "y"}, prefix="")
    return Operation(
        type="node.move",
        target_id=_uuid(raw.get("id"), "id"),
        fields={"x": _coordinate(raw.get("x"), "x"), "y": _coordinate(raw.get("y"), "y")},
    )


def _parse_node_delete(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id"}, prefix="")
    return Operation(type="node.delete", target_id=_uuid(raw.get("id"), "id"))


def _parse_node_supersede(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id", "node"}, prefix="")
    return Operation(
        type="node.supersede",
        target_id=_uuid(raw.get("id"), "id"),
        body=parse_node_body(raw.get("node"), prefix="node."),
    )


def _parse_node_archive(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id", "archived"}, prefix="")
    archived = raw.get("archived", True)
    return Operation(
        type="node.archive",
        target_id=_uuid(raw.get("id"), "id"),
        fields={"archived": _bool(archived, "archived")},
    )


def _parse_edge_create(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "edge"}, prefix="")
    body = raw.get("edge")
    if not isinstance(body, dict):
        raise InvalidOperation("edge must be an object", field="edge")
    _only_keys(body, {"id", "source", "target", "relation", "label"}, prefix="edge.")
    source = _uuid(body.get("source"), "edge.source")
    target = _uuid(body.get("target"), "edge.target")
    if source == target:
        raise InvalidOperation("an edge cannot connect a node to itself", field="edge.target")
    clean = {
        "id": _uuid(body["id"], "edge.id") if body.get("id") is not None else uuid.uuid4(),
        "source": source,
        "target": target,
        "relation": _choice(body.get("relation", Relation.RELATES_TO), Relation, "edge.relation"),
        "label": _label(body.get("label", ""), "edge.label"),
    }
    return Operation(type="edge.create", body=clean)


def _parse_edge_update(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id", "fields"}, prefix="")
    fields = raw.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise InvalidOperation("fields must be a non-empty object", field="fields")
    _only_keys(fields, set(EDGE_FIELDS), prefix="fields.")
    clean: dict[str, Any] = {}
    if "relation" in fields:
        clean["relation"] = _choice(fields["relation"], Relation, "fields.relation")
    if "label" in fields:
        clean["label"] = _label(fields["label"], "fields.label")
    return Operation(type="edge.update", target_id=_uuid(raw.get("id"), "id"), fields=clean)


def _parse_edge_delete(raw: dict[str, Any]) -> Operation:
    _only_keys(raw, {"type", "id"}, prefix="")
    return Operation(type="edge.delete", target_id=_uuid(raw.get("id"), "id"))


_PARSERS = {
    "node.create": _parse_node_create,
    "node.update": _parse_node_update,
    "node.move": _parse_node_move,
    "node.delete": _parse_node_delete,
    "node.supersede": _parse_node_supersede,
    "node.archive": _parse_node_archive,
    "edge.create": _parse_edge_create,
    "edge.update": _parse_edge_update,
    "edge.delete": _parse_edge_delete,
}


def parse_node_body(body: Any, *, prefix: str) -> dict[str, Any]:
    """A node.create body with defaults filled in."""
    if not isinstance(body, dict):
        raise InvalidOperation("node must be an object", field=prefix.rstrip("."))
    _only_keys(body, {"id", *NODE_FIELDS}, prefix=prefix)
    for required in ("x", "y"):
        if required not in body:
            raise InvalidOperation(f"{prefix}{required} is required", field=f"{prefix}{required}")
    clean: dict[str, Any] = {
        "id": _uuid(body["id"], f"{prefix}id") if body.get("id") is not None else uuid.uuid4(),
        "content": "",
        "kind": NodeKind.NOTE.value,
        "weight": 1.0,
        "tags": [],
        "pinned": False,
        "sensitivity": Sensitivity.PUBLIC.value,
    }
    for name in NODE_FIELDS:
        if name in body:
            clean[name] = _NODE_FIELD_VALIDATORS[name](body[name], f"{prefix}{name}")
    return clean


# --- field validators ---------------------------------------------------------


def _only_keys(obj: dict[str, Any], allowed: set[str], *, prefix: str) -> None:
    unknown = sorted(str(k) for k in obj.keys() - allowed)
    if unknown:
        raise InvalidOperation(f"unknown field {prefix}{unknown[0]}", field=f"{prefix}{unknown[0]}")


def _uuid(value: Any, name: str) -> uuid.UUID:
    if not isinstance(value, str):
        raise InvalidOperation(f"{name} must be a UUID string", field=name)
    parsed = canonical_uuid(value)
    if parsed is None:
        raise InvalidOperation(f"{name} is not a valid UUID (lowercase, hyphenated)", field=name)
    return parsed


def _finite(value: Any, name: str) -> float:
    # bool is an int in Python; a JSON true is not a number here.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidOperation(f"{name} must be a number", field=name)
    number = finite_float(value)  # also None for an int too large for a float (OverflowError)
    if number is None:
        raise InvalidOperation(f"{name} must be a finite number", field=name)
    return number


def _coordinate(value: Any, name: str) -> float:
    number = _finite(value, name)
    if abs(number) > COORDINATE_LIMIT:
        raise InvalidOperation(
            f"{name} must be a finite number between -{COORDINATE_LIMIT:.0f} and {COORDINATE_LIMIT:.0f}",
            field=name,
        )
    return number


def _weight(value: Any, name: str) -> float:
    number = _finite(value, name)
    if not MIN_WEIGHT <= number <= MAX_WEIGHT:
        raise InvalidOperation(f"{name} must be between {MIN_WEIGHT} and {MAX_WEIGHT}", field=name)
    return number


def _content(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidOperation(f"{name} must be a string", field=name)
    require_storable_text(value, name)
    if len(value) > MAX_CONTENT_CHARS:
        raise InvalidOperation(
            f"{name} is {len(value)} characters; the limit is {MAX_CONTENT_CHARS}", field=name
        )
    return value


def _base_version(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidOperation(
            "base_version must be a positive integer (a node version) or null", field="base_version"
        )
    return value


def _label(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidOperation(f"{name} must be a string", field=name)
    require_storable_text(value, name)  # before the length: a NUL is not a length problem
    if len(value) > MAX_LABEL_CHARS:
        raise InvalidOperation(f"{name} must be at most {MAX_LABEL_CHARS} characters", field=name)
    return value


def _tags(value: Any, name: str) -> list[str]:
    if not isinstance(value, list):
        raise InvalidOperation(f"{name} must be a list of strings", field=name)
    if len(value) > MAX_TAGS:
        raise InvalidOperation(f"{name} holds at most {MAX_TAGS} tags", field=name)
    clean: list[str] = []
    for index, tag in enumerate(value):
        if not isinstance(tag, str):
            raise InvalidOperation(f"{name} must be a list of strings", field=name)
        require_storable_text(tag, f"{name}[{index}]")
        tag = tag.strip()
        if not 1 <= len(tag) <= MAX_TAG_CHARS:
            raise InvalidOperation(f"each tag must be 1-{MAX_TAG_CHARS} characters", field=name)
        # Exact duplicates (after the strip; case and width kept: "DB" ≠ "db", "ＤＢ" ≠ "DB") are
        # dropped, first one kept, so a tag list is a set in the order given.
        if tag not in clean:
            clean.append(tag)
    return clean


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidOperation(f"{name} must be true or false", field=name)
    return value


def _choice(value: Any, choices: type[models.TextChoices], name: str) -> str:
    allowed: list[str] = [c.value for c in choices]
    if value not in allowed:
        raise InvalidOperation(f"{name} must be one of {', '.join(allowed)}", field=name)
    return str(value)


_NODE_FIELD_VALIDATORS: dict[str, Callable[[Any, str], Any]] = {
    "content": _content,
    "kind": lambda v, n: _choice(v, NodeKind, n),
    "x": _coordinate,
    "y": _coordinate,
    "weight": _weight,
    "tags": _tags,
    "pinned": _bool,
    "sensitivity": lambda v, n: _choice(v, Sensitivity, n),
}
