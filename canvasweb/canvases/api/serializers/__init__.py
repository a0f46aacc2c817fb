"""Request and response shapes of the REST API, for the OpenAPI schema (docs/api.md is the prose).

The views return the plain dicts of `canvasweb.canvases.serialization` and the
selectors unchanged; these serializers describe those dicts exactly (a test
validates real responses against the generated schema). Request bodies are
checked for unknown/missing keys by `common.drf.json_object`; value checks are
the services' job, the one place that validates writes.

One module per resource: `fields` (the enum and JSON field helpers), `errors`,
`users` (users, actors, login), `canvases` (canvases, members), `nodes` (nodes,
edges, snapshot, the change feed), `operations` (the op request bodies). The views
use this package as one namespace (`from canvasweb.canvases.api import serializers
as s`), so every shape is re-exported here.
"""

from __future__ import annotations

from .canvases import (
    AgentPolicyPatchSerializer,
    AgentPolicySerializer,
    CanvasCreateSerializer,
    CanvasSerializer,
    CanvasUpdateSerializer,
    MemberCreateSerializer,
    MemberSerializer,
    MemberUpdateSerializer,
)
from .errors import ErrorDetailSerializer, ErrorSerializer, errors
from .fields import EnumField, EnumFieldExtension, any_json, enum
from .nodes import (
    ChangeEventSerializer,
    ChangeSerializer,
    ChangesPageSerializer,
    EdgeSerializer,
    HistoryEntrySerializer,
    NodeSerializer,
    OpResultSerializer,
    SnapshotSerializer,
)
from .operations import (
    SINGLE_OPS,
    BatchOpSerializer,
    EdgeBodySerializer,
    EdgeCreateOpSerializer,
    EdgeDeleteOpSerializer,
    EdgeFieldsSerializer,
    EdgeUpdateOpSerializer,
    NodeArchiveOpSerializer,
    NodeBodySerializer,
    NodeCreateOpSerializer,
    NodeDeleteOpSerializer,
    NodeFieldsSerializer,
    NodeMoveOpSerializer,
    NodeSupersedeOpSerializer,
    NodeUpdateOpSerializer,
    OpSubmitSerializer,
)
from .users import (
    ActorSerializer,
    ActorUserSerializer,
    CsrfOutputSerializer,
    EventActorSerializer,
    LoginInputSerializer,
    LoginOutputSerializer,
    TokenOutputSerializer,
    UserRefSerializer,
)

__all__ = [
    "SINGLE_OPS",
    "ActorSerializer",
    "ActorUserSerializer",
    "AgentPolicyPatchSerializer",
    "AgentPolicySerializer",
    "BatchOpSerializer",
    "CanvasCreateSerializer",
    "CanvasSerializer",
    "CanvasUpdateSerializer",
    "ChangeEventSerializer",
    "ChangeSerializer",
    "ChangesPageSerializer",
    "CsrfOutputSerializer",
    "EdgeBodySerializer",
    "EdgeCreateOpSerializer",
    "EdgeDeleteOpSerializer",
    "EdgeFieldsSerializer",
    "EdgeSerializer",
    "EdgeUpdateOpSerializer",
    "EnumField",
    "EnumFieldExtension",
    "ErrorDetailSerializer",
    "ErrorSerializer",
    "EventActorSerializer",
    "HistoryEntrySerializer",
    "LoginInputSerializer",
    "LoginOutputSerializer",
    "MemberCreateSerializer",
    "MemberSerializer",
    "MemberUpdateSerializer",
    "NodeArchiveOpSerializer",
    "NodeBodySerializer",
    "NodeCreateOpSerializer",
    "NodeDeleteOpSerializer",
    "NodeFieldsSerializer",
    "NodeMoveOpSerializer",
    "NodeSerializer",
    "NodeSupersedeOpSerializer",
    "NodeUpdateOpSerializer",
    "OpResultSerializer",
    "OpSubmitSerializer",
    "SnapshotSerializer",
    "TokenOutputSerializer",
    "UserRefSerializer",
    "any_json",
    "enum",
    "errors",
]
