"""Response shapes of the history API (for the OpenAPI schema)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from canvasweb.canvases.api import serializers as s


class HistoryDiffRowSerializer(serializers.Serializer):
    field = serializers.CharField()
    before = s.any_json(allow_null=True)
    after = s.any_json(allow_null=True)


class UndoRefSerializer(serializers.Serializer):
    kind = s.enum(["undo", "redo"], component="UndoKind")
    revision = serializers.IntegerField(help_text="The revision this undo/redo inverted.")


class TimelineEntrySerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="Order within the revision.")
    at = serializers.DateTimeField()
    actor = s.ActorSerializer()
    op_type = serializers.CharField(help_text="The operation asked for, e.g. node.update, node.supersede.")
    reason = serializers.CharField(
        allow_null=True, help_text="revert, undo, redo, import; null for plain edits."
    )
    entity = s.enum(["node", "edge", "canvas", "member"], component="HistoryEntity")
    action = s.enum(
        ["created", "updated", "deleted", "removed"],
        component="HistoryAction",
        help_text="removed: the entity became invisible to you with this change.",
    )
    target_id = serializers.CharField()
    node_id = serializers.CharField(allow_null=True, help_text="The node to focus (an edge's source).")
    fields = serializers.ListField(child=serializers.CharField())  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that
    diff = HistoryDiffRowSerializer(
        many=True, help_text="Field by field; for created/deleted the non-empty fields."
    )
    before = s.any_json(
        allow_null=True, help_text="The entity before (null if created or not visible to you)."
    )
    after = s.any_json(allow_null=True, help_text="The entity after (null if deleted or not visible to you).")
    summary = serializers.CharField(allow_blank=True, help_text="First line of the content, or the relation.")
    undo_of = UndoRefSerializer(allow_null=True)
    source_text = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Edges: first line of the source node's text ('' if not visible).",
    )
    target_text = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Edges: first line of the target node's text ('' if not visible).",
    )


class NodeTimelineEntrySerializer(TimelineEntrySerializer):
    revertible = serializers.BooleanField(help_text="True if POST …/revert/ with this revision restores it.")


class SupersededChainItemSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    position = s.enum(["before", "current", "after"], component="ChainPosition")
    deleted = serializers.BooleanField()
    content = serializers.CharField(allow_blank=True)
    kind = serializers.CharField(allow_null=True)
    superseded_by = serializers.UUIDField(allow_null=True)


class TimelineSerializer(serializers.Serializer):
    node = s.NodeSerializer(allow_null=True, help_text="The node now, or its last version if deleted.")
    deleted = serializers.BooleanField()
    chain = SupersededChainItemSerializer(many=True, help_text="The superseded chain, oldest version first.")
    entries = NodeTimelineEntrySerializer(many=True, help_text="Oldest first.")


class ActivityPageSerializer(serializers.Serializer):
    revision = serializers.IntegerField(help_text="The canvas's current revision.")
    items = TimelineEntrySerializer(many=True, help_text="Newest first.")
    next_before = serializers.IntegerField(allow_null=True, help_text="Pass as ?before= for older items.")


class RevertInputSerializer(serializers.Serializer):
    revision = serializers.IntegerField(
        min_value=1, help_text="Restore the node as it was after this revision."
    )


class RevertOutputSerializer(serializers.Serializer):
    reverted_to = serializers.IntegerField()
    node_id = serializers.UUIDField()
    recreated = serializers.BooleanField(help_text="The node had been deleted and was created again.")
    fields = serializers.ListField(  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that
        child=serializers.CharField(), help_text="Fields that changed (empty: no-op)."
    )
    revision = serializers.IntegerField(help_text="The new revision (unchanged if nothing differed).")
    changes = s.ChangeSerializer(many=True)


class UndoAppliedSerializer(serializers.Serializer):
    entity = s.enum(["node", "edge"], component="UndoEntity")
    id = serializers.CharField()
    action = s.enum(["created", "updated", "deleted"], component="UndoAction")
    fields = serializers.ListField(child=serializers.CharField())  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that


class UndoSkippedBySerializer(serializers.Serializer):
    kind = serializers.CharField()
    username = serializers.CharField()
    label = serializers.CharField(help_text="e.g. bob, or the agent for bob.")  # type: ignore[assignment]  # DRF's metaclass moves declared fields out of the class; the stubs can't model that


class UndoSkippedSerializer(serializers.Serializer):
    entity = s.enum(["node", "edge"], component="UndoEntity")
    id = serializers.CharField()
    field = serializers.CharField(
        allow_null=True, help_text="The field left alone; null for the whole entity."
    )
    reason = serializers.CharField()
    by = UndoSkippedBySerializer(allow_null=True)
    revision = serializers.IntegerField(allow_null=True, help_text="The revision of the other change.")
    summary = serializers.CharField(allow_blank=True)


class UndoOutputSerializer(serializers.Serializer):
    kind = s.enum(["undo", "redo"], component="UndoKind")
    inverted_revision = serializers.IntegerField()
    revision = serializers.IntegerField(
        allow_null=True, help_text="The new revision; null if all was skipped."
    )
    applied = UndoAppliedSerializer(many=True)
    skipped = UndoSkippedSerializer(many=True)
    changes = s.ChangeSerializer(many=True)
    can_undo = serializers.BooleanField()
    can_redo = serializers.BooleanField()


class UndoStatusSerializer(serializers.Serializer):
    can_undo = serializers.BooleanField()
    can_redo = serializers.BooleanField()
    undo_revision = serializers.IntegerField(allow_null=True, help_text="What an undo would invert.")
    redo_revision = serializers.IntegerField(allow_null=True, help_text="What a redo would invert.")


class ImportUnknownKeysSerializer(serializers.Serializer):
    where = serializers.CharField()
    keys = serializers.ListField(child=serializers.CharField())


class ImportOutputSerializer(serializers.Serializer):
    canvas = s.CanvasSerializer()
    revision = serializers.IntegerField()
    nodes = serializers.IntegerField()
    edges = serializers.IntegerField()
    id_map = serializers.DictField(child=serializers.UUIDField(), help_text="File id → new Canvasweb id.")
    unknown_keys = ImportUnknownKeysSerializer(
        many=True, help_text="Keys Canvasweb does not know (not kept)."
    )
    notes = serializers.ListField(child=serializers.CharField(), help_text="How foreign things were mapped.")


class ImportErrorDetailSerializer(s.ErrorDetailSerializer):
    problems = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Every problem found in the file (code INVALID_CANVAS_FILE).",
    )


class ImportErrorSerializer(serializers.Serializer):
    error = ImportErrorDetailSerializer()


def _error(status_code: int, text: str) -> dict:
    return {status_code: OpenApiResponse(response=s.ErrorSerializer, description=text)}
