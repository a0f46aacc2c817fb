"""Input checks every JSON surface shares (REST bodies, WebSocket frames, import files).

Three kinds of JSON that parse fine in Python and break later:

- a lone surrogate escape (`"a\\ud800b"`): a valid JSON string that no UTF-8
  encoder accepts (the audit hash, the database, the socket all fail on it);
- an integer literal too large for a float (`1000…0` with 400 digits):
  `float()` raises OverflowError where a finite-number check expected a value;
- a NUL character (`"a\\u0000b"`): PostgreSQL stores it in no text or jsonb
  column, so a canvas name, a conversation title, a `client_op_id` or a chat
  question holding one failed at the INSERT (a 500 on Postgres only).

`find_unsafe` names the first such value by its path so callers can answer
`INVALID` with the field; `finite_float` is the number check that never raises.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import InvalidOperation

# Paths deeper than this are not walked further (the JSON parser already refused deeper nesting).
_MAX_DEPTH = 200


def has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _text_problem(text: str) -> str | None:
    """What makes `text` unstorable, or None."""
    if has_lone_surrogate(text):
        return "a lone surrogate (not valid Unicode text)"
    if "\x00" in text:
        return "a NUL character (\\u0000), which cannot be stored"
    return None


def require_storable_text(text: str, where: str) -> None:
    """InvalidOperation naming `where` when `text` holds a lone surrogate or a NUL character, with the
    message `find_unsafe` gives, so a check inside a validator reads like the body parser's."""
    problem = _text_problem(text)
    if problem is not None:
        raise InvalidOperation(f"{where} contains {problem}", field=where)


def is_storable_text(text: str) -> bool:
    """False for text holding a lone surrogate or a NUL character."""
    return _text_problem(text) is None


def finite_float(value: Any) -> float | None:
    """`value` as a finite float, or None for anything else (bools, strings, NaN, ints beyond float range)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def find_unsafe(
    value: Any, path: str = "", *, non_finite: bool = False, only_non_finite: bool = False
) -> tuple[str, str] | None:
    """(field path, message) of the first string with a lone surrogate or a NUL character, or integer too
    large for a float; with `non_finite`, also of the first NaN or ±Infinity (for text parsed with those
    literals allowed); with `only_non_finite`, of the first NaN or ±Infinity alone."""
    non_finite = non_finite or only_non_finite
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if only_non_finite and isinstance(item, (str, int)):
            continue
        if isinstance(item, str):
            problem = _text_problem(item)
            if problem is not None:
                return where, f"{where or 'the body'} contains {problem}"
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if finite_float(item) is None:
                return where, f"{where or 'the body'} is a number too large to represent"
        elif isinstance(item, float):
            if non_finite and not math.isfinite(item):
                name = where.rsplit(".", 1)[-1] or "the body"
                return where, f"{name} must be a finite number"
        elif depth < _MAX_DEPTH and isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                problem = _text_problem(key) if isinstance(key, str) and not only_non_finite else None
                if problem is not None:
                    return where, f"{where or 'the body'} has a key with {problem}"
                stack.append((child, _join(where, key), depth + 1))
        elif depth < _MAX_DEPTH and isinstance(item, list):
            for index in range(len(item) - 1, -1, -1):
                stack.append((item[index], _join(where, index), depth + 1))
    return None


def require_safe(value: Any, path: str = "") -> Any:
    """`value` unchanged, or InvalidOperation naming the field that holds unsafe data."""
    found = find_unsafe(value, path)
    if found is not None:
        raise InvalidOperation(found[1], field=found[0] or None)
    return value


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str | bytes) -> Any:
    """json.loads without NaN/Infinity; ValueError/RecursionError propagate for the caller to word."""
    return json.loads(text, parse_constant=_reject_constant)
