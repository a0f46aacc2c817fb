"""Node and edge ids as clients send them: only the canonical form (docs/api.md "Ids")."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.urls.converters import UUIDConverter

# The same pattern the <uuid:...> path converter routes, so a body, a frame, a query parameter and
# a path accept exactly the same ids: 36 characters, lowercase hex, hyphenated. Python's
# uuid.UUID also takes uppercase, braces, "urn:uuid:" and no hyphens; those would name a row by
# a second spelling.
_CANONICAL = re.compile(UUIDConverter.regex)


def canonical_uuid(value: Any) -> uuid.UUID | None:
    """`value` as a UUID if it is a string in the canonical form, else None."""
    if isinstance(value, str) and _CANONICAL.fullmatch(value):
        return uuid.UUID(value)
    return None
