"""OpenAPI shapes of the chat endpoints (documentation only; validation lives in chat/services.py)."""

from rest_framework import serializers


class ConversationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    canvas_id = serializers.IntegerField()
    title = serializers.CharField()
    summary = serializers.CharField(help_text="The structured rolling summary (empty until the first fold).")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ConversationCreateSerializer(serializers.Serializer):
    title = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Empty or absent: the conversation is named after its first question.",
    )


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    conversation_id = serializers.IntegerField()
    role = serializers.ChoiceField(choices=["user", "assistant", "tool"])
    source = serializers.ChoiceField(choices=["user_input", "assistant_reply", "tool_result"])
    content = serializers.CharField()
    status = serializers.ChoiceField(choices=["complete", "streaming", "stopped", "error"])
    error = serializers.CharField(allow_null=True)
    error_code = serializers.CharField(allow_null=True, help_text="e.g. MODEL_TIMEOUT, for failed replies")
    token_count = serializers.IntegerField(allow_null=True)
    model_request_id = serializers.IntegerField(allow_null=True, help_text="the turn's first request")
    model_request_ids = serializers.ListField(
        child=serializers.IntegerField(), help_text="every request of the turn (agent rounds too)"
    )
    created_at = serializers.DateTimeField()


class ModelRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    conversation_id = serializers.IntegerField()
    message_id = serializers.IntegerField(allow_null=True)
    purpose = serializers.CharField()
    model = serializers.CharField()
    base_url = serializers.CharField()
    strategy = serializers.CharField()
    messages = serializers.ListField(child=serializers.DictField(), help_text="Exactly what was sent.")
    tools = serializers.ListField(child=serializers.DictField(), allow_null=True)
    layer_tokens = serializers.DictField(child=serializers.IntegerField())
    budget = serializers.IntegerField()
    included_node_ids = serializers.ListField(child=serializers.CharField())
    report = serializers.DictField()
    response_text = serializers.CharField()
    tool_calls = serializers.ListField(child=serializers.DictField(), allow_null=True)
    usage = serializers.DictField(allow_null=True)
    latency_ms = serializers.IntegerField(allow_null=True)
    error = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()


class SuggestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    conversation_id = serializers.IntegerField()
    message_id = serializers.IntegerField()
    content = serializers.CharField(
        help_text="The clean statement that becomes the node ('JWT expiry: 30 minutes')."
    )
    kind = serializers.CharField(help_text="The node kind it is created with.")
    subject = serializers.CharField(help_text="Normalized keywords of the subject.")
    label = serializers.CharField(help_text="The subject as said ('JWT expiry', '截止日期'); may be empty.")
    value = serializers.CharField()
    previous_value = serializers.CharField(allow_null=True, help_text="The value it replaces (old → new).")
    reason = serializers.CharField()
    sensitivity = serializers.ChoiceField(
        choices=["public", "internal", "secret"],
        help_text="Suggested: from what the message said about who may see it.",
    )
    status = serializers.ChoiceField(choices=["pending", "accepted", "dismissed"])
    action = serializers.ChoiceField(choices=["create", "supersede", "conflicts_with"])
    source = serializers.ChoiceField(
        choices=["rules", "model"], help_text="Deterministic capture or the model."
    )
    supersede_node_id = serializers.UUIDField(allow_null=True, help_text="The node accepting retires.")
    supersede_content = serializers.CharField(allow_null=True, help_text="That node's text when suggested.")
    conflict_node_id = serializers.UUIDField(allow_null=True, help_text="A constraint node the fact breaks.")
    conflict_content = serializers.CharField(allow_null=True)
    note = serializers.CharField(allow_null=True, help_text="The short conflict note the chat shows.")
    warnings = serializers.ListField(
        child=serializers.ChoiceField(choices=["pinned", "more_sensitive"]),
        help_text="Retiring this node needs confirm: true.",
    )
    created_node_id = serializers.UUIDField(allow_null=True)


class SuggestionAcceptSerializer(serializers.Serializer):
    x = serializers.FloatField(required=False, default=0.0)
    y = serializers.FloatField(required=False, default=0.0)
    supersede = serializers.BooleanField(
        required=False, default=True, help_text="Supersede the conflicting node when one was found."
    )
    sensitivity = serializers.ChoiceField(
        choices=["public", "internal", "secret"],
        required=False,
        allow_null=True,
        help_text="Overrides the suggested sensitivity.",
    )
    confirm = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Required to retire a pinned node or one more restricted than the "
        "new fact (the suggestion's warnings).",
    )


class SuggestionResultSerializer(serializers.Serializer):
    suggestion = SuggestionSerializer()
    revision = serializers.IntegerField(required=False)


class PreviewInputSerializer(serializers.Serializer):
    text = serializers.CharField(required=False, allow_blank=True)
    conversation_id = serializers.IntegerField(required=False, allow_null=True)
    viewport = serializers.DictField(
        required=False, allow_null=True, help_text="{x, y, zoom, width, height}; null = the defaults"
    )


class PreviewSerializer(serializers.Serializer):
    budget = serializers.DictField(child=serializers.IntegerField())
    layer_tokens = serializers.DictField(child=serializers.IntegerField())
    total_tokens = serializers.IntegerField()
    included = serializers.ListField(child=serializers.DictField())
    excluded = serializers.ListField(child=serializers.DictField())
    excluded_counts = serializers.DictField(child=serializers.IntegerField())
    truncations = serializers.ListField(child=serializers.DictField())
    notes = serializers.ListField(child=serializers.CharField())


class LLMStatusSerializer(serializers.Serializer):
    configured = serializers.BooleanField()
    model = serializers.CharField(allow_null=True)
    context_window = serializers.IntegerField()
    max_output_tokens = serializers.IntegerField()
    help = serializers.CharField(allow_null=True)


class AgentActionSerializer(serializers.Serializer):
    type = serializers.CharField(default="agent.action")
    conversation_id = serializers.IntegerField()
    message_id = serializers.IntegerField()
    round = serializers.IntegerField()
    call_id = serializers.CharField()
    tool = serializers.CharField()
    outcome = serializers.ChoiceField(choices=["applied", "proposed", "read", "refused"])
    error = serializers.DictField(allow_null=True, help_text="{code, message, field} of a refusal")
    proposal_id = serializers.IntegerField(allow_null=True)
    revision = serializers.IntegerField(allow_null=True)
    dismissed_suggestion_ids = serializers.ListField(child=serializers.IntegerField())


class MessageListItemSerializer(MessageSerializer):
    handles = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="assistant: handle (n3) -> node id, nodes you may see now",
    )
    agent_actions = AgentActionSerializer(
        many=True, required=False, help_text="assistant: the agent's tool calls of the turn"
    )
    suggestions = SuggestionSerializer(
        many=True, required=False, help_text="user: the facts captured from it, in every state"
    )
