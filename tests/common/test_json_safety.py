"""canvasweb.common.json_safety: the values every JSON surface refuses, named by their path."""

from __future__ import annotations

import pytest

from canvasweb.common.errors import InvalidOperation
from canvasweb.common.json_safety import find_unsafe, is_storable_text, require_safe, require_storable_text


def test_a_nul_character_is_unsafe_wherever_it_is():
    # PostgreSQL stores NUL in no text or jsonb column: refused like a lone surrogate.
    assert find_unsafe({"name": "a\x00b"}) == (
        "name",
        "name contains a NUL character (\\u0000), which cannot be stored",
    )
    assert find_unsafe({"op": {"node": {"tags": ["ok", "\x00"]}}})[0] == "op.node.tags[1]"
    assert (
        find_unsafe({"a\x00": 1})[1]
        == "the body has a key with a NUL character (\\u0000), which cannot be stored"
    )
    with pytest.raises(InvalidOperation) as caught:
        require_safe({"client_op_id": "\x00"})
    assert caught.value.field == "client_op_id"


def test_storable_text():
    assert is_storable_text("中文 🚀 \t\n")
    assert not is_storable_text("a\x00b")
    assert not is_storable_text("a\ud800b")
    assert find_unsafe({"text": "中文 🚀", "n": 1.5}) is None


def test_require_storable_text_names_the_field_like_the_body_parser():
    require_storable_text("中文 🚀", "node.tags[0]")
    with pytest.raises(InvalidOperation) as caught:
        require_storable_text("c\x00", "node.tags[2]")
    assert caught.value.field == "node.tags[2]"
    assert caught.value.message == find_unsafe({"node": {"tags": ["a", "b", "c\x00"]}})[1]
