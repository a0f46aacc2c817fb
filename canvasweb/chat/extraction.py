"""Fact capture by the model: structured output against a JSON schema, checked strictly, rules as the fallback.

When a model is configured (settings.LLM) and CAPTURE["WITH_MODEL"] is on, the
chat asks it, after the turn has started (off the request path: chat/turns.py
runs this in a task and sends `chat.suggestions`), what the user message states
or corrects. The model sees the message and the live nodes the user may see
(secret nodes never; credentials masked), each under a handle `nK`; it answers
with handles, never node ids. Anything wrong — HTTP error, timeout, not JSON,
a field out of schema, an unknown handle — and the deterministic suggestions
already made stay as they are. The benchmark never takes this path.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, cast

import openai
from django.conf import settings
from django.db import transaction
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema

from canvasweb.context.capture import SuggestedFact, capture_facts, sensitivity_marked, value_key, value_type
from canvasweb.context.capture.extract import subject_key
from canvasweb.context.capture.matching import coverage, subject_terms
from canvasweb.context.redaction import build_secret_masker, mask_credentials, secret_values
from canvasweb.context.types import NodeData

from .context_inputs import canvas_inputs
from .llm import ModelConfig
from .models import FactSuggestion, Message, SuggestionStatus
from .suggestion_capture import capture_suggestions
from .suggestions import visible_nodes

logger = logging.getLogger(__name__)

SCHEMA_NAME = "canvas_fact_extraction"
MAX_NODES = 60
MAX_FACTS = 8
VALUE_TYPES = (
    "date",
    "time",
    "money",
    "duration",
    "percent",
    "temperature",
    "phone",
    "port",
    "region",
    "version",
    "count",
    "size",
    "number",
    "name",
    "text",
)
KINDS = ("fact", "decision", "config", "rule", "correction")
_TEXT = {"type": "string", "maxLength": 300}
_NULLABLE_TEXT = {"type": ["string", "null"], "maxLength": 300}
EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts"],
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_FACTS,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [
                    "statement",
                    "kind",
                    "subject",
                    "value",
                    "value_type",
                    "previous_value",
                    "corrects",
                    "tentative",
                ],
                "properties": {
                    "statement": _TEXT,  # the clean statement: "JWT expiry: 30 minutes"
                    "kind": {"type": "string", "enum": list(KINDS)},
                    "subject": _TEXT,
                    "value": _TEXT,
                    "value_type": {"type": "string", "enum": list(VALUE_TYPES)},
                    "previous_value": _NULLABLE_TEXT,
                    "corrects": {"type": ["string", "null"], "maxLength": 12},  # a node handle such as "n3"
                    "tentative": {"type": "boolean"},
                },
            },
        }
    },
}
INSTRUCTIONS = (
    "Extract the facts a user message states or corrects, for a shared project canvas. Answer only with JSON "
    "matching the schema. One entry per fact: `statement` is a short clean statement of the fact in the "
    "message's language ('JWT expiry: 30 minutes', '截止日期：4月1日'), never the raw sentence; `subject` what "
    "it is about; `value` the value; `previous_value` the value it replaces if the message says so; `corrects` "
    "the handle of the canvas node whose value this fact changes (same subject, a different value of the same "
    "kind), else null. Sharing a word with a node is not a correction. Questions and hypotheticals are not "
    'facts; hedged statements have tentative true. Return {"facts": []} when there is nothing.'
)


class ExtractionError(Exception):
    """The model's answer cannot be used; the caller keeps the rules' suggestions."""


@dataclass(frozen=True, slots=True)
class ModelFacts:
    facts: list[SuggestedFact]
    targets: list[str | None]  # node ids, resolved from the handles


def extraction_messages(*, text: str, nodes: list[NodeData], mask=None) -> tuple[list[dict], dict[str, str]]:
    """The request, and handle -> node id. Only visible, non-secret nodes; credentials and the values of
    secret nodes (wherever they were pasted) masked, as in every prompt."""

    def clean(value: str) -> str:
        return mask_credentials(mask(value) if mask else value)

    handles: dict[str, str] = {}
    lines = []
    for index, node in enumerate(nodes[:MAX_NODES], start=1):
        handle = f"n{index}"
        handles[handle] = node.id
        flags = " (pinned)" if node.pinned else ""
        lines.append(f"[{handle}]{flags} {clean(' '.join(node.content.split()))[:400]}")
    canvas = "\n".join(lines) or "(no nodes)"
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": f"Canvas nodes:\n{canvas}\n\nUser message:\n{clean(text)}"},
    ], handles


def parse_extraction(raw: str | None, *, handles: dict[str, str], sensitivity: str) -> ModelFacts:
    """Strict check of the model's answer against the schema; ExtractionError on anything off."""
    try:
        data = json.loads(raw or "")
    except (TypeError, ValueError):
        raise ExtractionError("not JSON") from None
    if not isinstance(data, dict) or set(data) != {"facts"} or not isinstance(data["facts"], list):
        raise ExtractionError("expected an object with exactly `facts`")
    if len(data["facts"]) > MAX_FACTS:
        raise ExtractionError("too many facts")
    props = EXTRACTION_SCHEMA["properties"]["facts"]["items"]["properties"]
    facts, targets = [], []
    for item in data["facts"]:
        if not isinstance(item, dict) or set(item) != set(props):
            raise ExtractionError("a fact has missing or extra fields")
        for name in ("statement", "subject", "value"):
            if not isinstance(item[name], str) or len(item[name]) > 300:
                raise ExtractionError(f"{name} must be a string of at most 300 characters")
        if item["previous_value"] is not None and (
            not isinstance(item["previous_value"], str) or len(item["previous_value"]) > 300
        ):
            raise ExtractionError("previous_value must be a string or null")
        if item["kind"] not in KINDS or item["value_type"] not in VALUE_TYPES:
            raise ExtractionError("kind or value_type out of range")
        if not isinstance(item["tentative"], bool):
            raise ExtractionError("tentative must be a boolean")
        if item["corrects"] is not None and item["corrects"] not in handles:
            raise ExtractionError(f"unknown node handle {item['corrects']!r}")
        statement = " ".join(mask_credentials(item["statement"]).split())
        value = mask_credentials(item["value"]).strip()
        if not statement or "[REDACTED" in value:
            continue  # a credential is never a fact value
        label = " ".join(item["subject"].split())
        facts.append(
            SuggestedFact(
                content=statement,
                kind=item["kind"],
                subject=subject_key(label, value),
                value=value or None,
                reason="model extraction",
                previous_value=(item["previous_value"] or "").strip() or None,
                sensitivity=sensitivity,
                label=label,
                value_type=item["value_type"] or value_type(value),
                tentative=item["tentative"],
                sentence=statement,
            )
        )
        targets.append(handles[item["corrects"]] if item["corrects"] else None)
    return ModelFacts(facts=facts, targets=targets)


def extract_with_model(*, config: ModelConfig, text: str, nodes: list[NodeData], mask=None) -> ModelFacts:
    """Ask the model (no retries: the rules' answer is already on screen). Raises ExtractionError."""
    messages, handles = extraction_messages(text=text, nodes=nodes, mask=mask)
    timeout = min(config.timeout, float(settings.CAPTURE["TIMEOUT_SECONDS"]))
    client = openai.OpenAI(
        base_url=config.base_url or None,
        api_key=config.api_key or "not-needed",
        timeout=timeout,
        max_retries=0,
    )
    try:
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": EXTRACTION_SCHEMA},
        }
        response = client.chat.completions.create(
            model=config.model,
            # extraction_messages builds plain {"role", "content"} chat messages.
            messages=cast("list[ChatCompletionMessageParam]", messages),
            temperature=0,
            max_tokens=min(config.max_output_tokens, 800),
            response_format=response_format,
        )
        raw = response.choices[0].message.content if response.choices else None
    except (openai.OpenAIError, ValueError, AttributeError, IndexError) as exc:
        raise ExtractionError(f"{type(exc).__name__}: {str(exc)[:200]}") from None
    finally:
        client.close()
    return parse_extraction(raw, handles=handles, sensitivity=sensitivity_marked(text))


def model_capture_enabled() -> bool:
    return bool(settings.CAPTURE["WITH_MODEL"]) and ModelConfig.from_settings().configured


def _relevant(nodes: list[NodeData], text: str) -> list[NodeData]:
    """The nodes the message most likely speaks about first (the prompt holds at most MAX_NODES)."""
    terms = subject_terms(text)
    return sorted(nodes, key=lambda n: (-coverage(terms, subject_terms(n.content)), n.id))


def refine_with_model(*, message_id: int, role: str) -> dict | None:
    """Replace the message's pending rule-based suggestions by the model's. None: keep them (fallback)."""
    message = Message.objects.select_related("conversation").filter(pk=message_id).first()
    if message is None or role == "viewer" or not model_capture_enabled():
        return None
    conversation = message.conversation
    nodes = [
        n for n in visible_nodes(canvas_id=conversation.canvas_id, role=role) if n.sensitivity != "secret"
    ]
    every, _, _ = canvas_inputs(canvas_id=conversation.canvas_id)
    mask = build_secret_masker(secret_values(n.content for n in every if n.sensitivity == "secret"))
    try:
        result = extract_with_model(
            config=ModelConfig.from_settings(),
            text=message.content,
            nodes=_relevant(nodes, message.content),
            mask=mask,
        )
    except ExtractionError as exc:
        logger.info("model fact extraction fell back to the rules: %s", exc)
        return None
    with transaction.atomic():
        pending = FactSuggestion.objects.select_for_update().filter(message=message)
        decided = {value_key(s.value) for s in pending if s.status != SuggestionStatus.PENDING and s.value}
        removed = [s.pk for s in pending if s.status == SuggestionStatus.PENDING and s.source == "rules"]
        FactSuggestion.objects.filter(pk__in=removed).delete()
        keep = [
            (f, t)
            for f, t in zip(result.facts, result.targets, strict=True)
            if not (f.value and value_key(f.value) in decided)
        ]
        created = capture_suggestions(
            conversation=conversation,
            message=message,
            role=role,
            facts=[f for f, _ in keep],
            targets=[t for _, t in keep],
            source="model",
        )
    return {
        "conversation_id": conversation.pk,
        "message_id": message.pk,
        "suggestions": created,
        "removed_suggestion_ids": removed,
    }


__all__ = [
    "EXTRACTION_SCHEMA",
    "ExtractionError",
    "capture_facts",
    "extract_with_model",
    "parse_extraction",
    "refine_with_model",
]
