"""Users and actors (who made a change), and the login, CSRF and token answers."""

from __future__ import annotations

from rest_framework import serializers

from .fields import enum


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class ActorUserSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, help_text="null if the user account was deleted since.")
    username = serializers.CharField()


class ActorSerializer(serializers.Serializer):
    kind = enum(["user", "agent", "system"], "ActorKind")
    user = ActorUserSerializer(allow_null=True)
    on_behalf_of = ActorUserSerializer(
        allow_null=True, help_text="For agent writes: the person it acted for."
    )
    approved_by = UserRefSerializer(allow_null=True, help_text="Who approved an agent proposal, if anyone.")
    conversation_id = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(
        allow_null=True, help_text="e.g. revert, undo, import; null for plain edits."
    )


class EventActorSerializer(ActorSerializer):
    via = serializers.CharField(
        allow_null=True,
        help_text='The tool outside the page the agent worked in, e.g. "MCP (claude-ai)"; null otherwise.',
    )


class LoginInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField()


class LoginOutputSerializer(serializers.Serializer):
    user = UserRefSerializer()
    csrf_token = serializers.CharField(help_text="The new CSRF token (Django rotates it on login).")


class CsrfOutputSerializer(serializers.Serializer):
    csrf_token = serializers.CharField()


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")
