"""Canvases (with their agent policy) and their members."""

from __future__ import annotations

from rest_framework import serializers

from canvasweb.canvases.models import AgentMode, AgentScope, Role

from .fields import enum
from .users import UserRefSerializer

# --- canvases ----------------------------------------------------------------------------------------


class AgentPolicySerializer(serializers.Serializer):
    mode = enum(
        AgentMode,
        "AgentMode",
        help_text="off: no agent writes; propose: a person approves each; auto: direct.",
    )
    scope = enum(
        AgentScope,
        "AgentScope",
        help_text="all, or tagged: only nodes tagged agent-writable or agent-written.",
    )
    protect_pinned = serializers.BooleanField(help_text="The agent may not change or create pinned anchors.")
    allow_archive = serializers.BooleanField(help_text="The agent may archive nodes.")
    external_access = serializers.BooleanField(
        help_text="Tools outside the page may use this canvas: the MCP server and the OpenAI-compatible endpoint."
    )


class AgentPolicyPatchSerializer(serializers.Serializer):
    mode = enum(AgentMode, "AgentMode", required=False)
    scope = enum(AgentScope, "AgentScope", required=False)
    protect_pinned = serializers.BooleanField(required=False)
    allow_archive = serializers.BooleanField(required=False)
    external_access = serializers.BooleanField(required=False)


class CanvasSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    revision = serializers.IntegerField(help_text="Bumped by exactly 1 on every committed write.")
    agent_policy = AgentPolicySerializer()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    role = enum(Role, "CanvasRole", help_text="Your role on this canvas.")
    member_count = serializers.IntegerField()


class CanvasCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, help_text="1-200 characters (trimmed).")
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class CanvasUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    agent_policy = AgentPolicyPatchSerializer(required=False, help_text="Any subset of the policy keys.")


# --- members -----------------------------------------------------------------------------------------


class MemberSerializer(serializers.Serializer):
    user = UserRefSerializer()
    role = enum(Role, "CanvasRole")


class MemberCreateSerializer(serializers.Serializer):
    username = serializers.CharField(required=False, help_text="Give either username or user_id.")
    user_id = serializers.IntegerField(required=False)
    role = enum(Role, "CanvasRole")


class MemberUpdateSerializer(serializers.Serializer):
    role = enum(Role, "CanvasRole")
