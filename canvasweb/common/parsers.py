"""The JSON body parser of every API view (also DRF's DEFAULT_PARSER_CLASSES).

Kept out of drf.py: DRF reads DEFAULT_PARSER_CLASSES while `rest_framework.views` is
being imported, so this module must not import it.
"""

from __future__ import annotations

import codecs

from django.conf import settings
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser
from rest_framework.settings import api_settings
from rest_framework.utils import json

from .json_safety import require_safe


def max_body_bytes() -> int:
    """Largest accepted request body (Django's DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB by default)."""
    limit = getattr(settings, "DATA_UPLOAD_MAX_MEMORY_SIZE", None)
    return int(limit) if limit else 2_621_440


class PayloadTooLarge(exceptions.APIException):
    # The API exception handler maps 413 to code TOO_LARGE.
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "request body too large"
    default_code = "too_large"


class LimitedJSONParser(JSONParser):
    """DRF's strict JSON parser (NaN/Infinity refused) with a body size cap, no 500 on deep nesting, and
    lone surrogates / integers too large for a float refused as INVALID with the field."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge(f"request body is larger than {limit} bytes")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
            data = json.loads(text, parse_constant=json.strict_constant if api_settings.STRICT_JSON else None)
        except (ValueError, UnicodeDecodeError) as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
        # Lone surrogates and integers beyond float range: 400 INVALID naming the field, before any view runs.
        return require_safe(data)
