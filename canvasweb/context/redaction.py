"""Credential masking and secret placeholders.

Every string that leaves the compiler passes through `mask_credentials`.
Patterns are deliberately specific (known key prefixes, explicit
`password=`-style assignments, long high-entropy values after key/token/secret
names) so ordinary prose, port numbers and Chinese text are left alone.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import NodeData


def _tag(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# Words that commonly follow "password:" / "password is" in prose and are not
# the password itself ("the password is stored in the vault").
_PROSE_WORDS = frozenset(
    """a an the is are was were be been in on at of to for from by with and or not no none null
    empty unset required needed missing stored kept set changed rotated same different wrong
    correct ok okay here there this that it its see below above secret hidden redacted""".split()
)

# Value of a password assignment: no whitespace, no closing punctuation at the end.
_PW_VALUE = r"""(?P<q>["'`]?)(?P<val>[^\s"'`,;，。；、)（）]*[^\s"'`,;，。；、)（）.!?:！？：])(?P=q)"""

# (kind, gate, pattern, replacement). The gate is a cheap substring test on
# (text, text.lower()) that every match needs; most text fails every gate and
# costs a few `in` checks instead of a dozen regex passes.
_Gate = Callable[[str, str], bool]
_PATTERNS: list[tuple[str, _Gate, re.Pattern[str], Callable[[re.Match[str]], str]]] = []


def _add(
    kind: str,
    pattern: str,
    repl: Callable[[re.Match[str]], str] | None = None,
    flags: int = 0,
    *,
    gate: _Gate,
) -> None:
    compiled = re.compile(pattern, flags)

    def tag(_m: re.Match[str], k: str = kind) -> str:
        return _tag(k)

    _PATTERNS.append((kind, gate, compiled, repl or tag))


def _looks_secret(value: str) -> bool:
    """Heuristic for values introduced by prose ("password is X")."""
    if len(value) < 4 or value.lower() in _PROSE_WORDS:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value[1:])
    return (has_digit and has_alpha) or (has_symbol and (has_alpha or has_digit)) or mixed_case


def _pw_repl(m: re.Match[str]) -> str:
    sep = m.group("sep")
    val = m.group("val")
    prose_sep = not any(ch in sep for ch in ":=：")
    if prose_sep and not _looks_secret(val):
        return m.group(0)
    if not prose_sep and (len(val) < 3 or val.lower() in _PROSE_WORDS):
        return m.group(0)
    q = m.group("q")
    return f"{m.group('key')}{sep}{q}{_tag('password')}{q}"


def _assign_repl(kind: str) -> Callable[[re.Match[str]], str]:
    def repl(m: re.Match[str]) -> str:
        q = m.group("q")
        return f"{m.group('key')}{m.group('sep')}{q}{_tag(kind)}{q}"

    return repl


# Order matters: whole blocks and structured tokens first, then assignments.
_add(
    "private_key",
    r"-----BEGIN (?P<t>[A-Z0-9 ]*?)PRIVATE KEY-----[\s\S]*?(?:-----END (?P=t)PRIVATE KEY-----|\Z)",
    gate=lambda t, low: "-----BEGIN" in t,
)
_add(
    "url_credentials",
    r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://)(?P<user>[^\s:/@?#\[\]]+):(?P<pw>[^\s@/?#\[\]]+)@",
    lambda m: f"{m.group('scheme')}{_tag('url_credentials')}@",
    gate=lambda t, low: "://" in t and "@" in t,
)
_add(
    "jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}", gate=lambda t, low: "eyJ" in t
)
_add(
    "bearer_token",
    # The token must look like one (a digit or a symbol), so "bearer authentication" stays.
    r"\b(?P<kw>[Bb]earer)\s+(?P<tok>(?=[A-Za-z0-9\-._~+/]*[0-9\-._~+/])[A-Za-z0-9\-._~+/]{12,}=*)",
    lambda m: f"{m.group('kw')} {_tag('bearer_token')}",
    gate=lambda t, low: "earer" in t,
)
# OpenAI-style keys: long ones always; short ones ("sk-prod-93af") if they mix in digits.
_add(
    "api_key",
    r"\bsk-(?:[A-Za-z0-9_\-]{20,}|(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9][A-Za-z0-9_\-]{6,})",
    gate=lambda t, low: "sk-" in t,
)
_add(
    "api_key",
    r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}",
    gate=lambda t, low: "k_live_" in t or "k_test_" in t,
)
_add("api_key", r"\bAIza[0-9A-Za-z_\-]{35}", gate=lambda t, low: "AIza" in t)
_add("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", gate=lambda t, low: "AKIA" in t or "ASIA" in t)
_add(
    "github_token",
    r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b|\bgithub_pat_[A-Za-z0-9_]{20,}",
    gate=lambda t, low: "gh" in t and "_" in t,
)
_add("slack_token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", gate=lambda t, low: "xox" in t)
# Generic: a long hex or base64-ish value right after a key/token/secret name.
_add(
    "secret",
    r"(?P<key>\b[A-Za-z0-9_.\-]*(?:api[_\-]?key|apikey|access[_\-]?key|secret|token|auth[_\-]?key|private[_\-]?key|client[_\-]?secret)[A-Za-z0-9_\-]*)"
    r"(?P<sep>\s*[:=]\s*|\s*=>\s*)(?P<q>[\"']?)"
    r"(?P<val>[A-Fa-f0-9]{16,}|(?=[A-Za-z0-9+/_\-]*\d)(?=[A-Za-z0-9+/_\-]*[A-Za-z])[A-Za-z0-9+/_\-]{16,}={0,2})(?P=q)",
    _assign_repl("secret"),
    re.IGNORECASE,
    gate=lambda t, low: (
        ("=" in t or ":" in t) and ("key" in low or "secret" in low or "token" in low or "auth" in low)
    ),
)
_add(
    "password",
    r"(?P<key>\b(?:password|passwd|passphrase|pwd|db_pass|db_password|pass)\b)"
    r"(?P<sep>\s*[:=]\s*|\s+(?:is|was|=)\s+)" + _PW_VALUE,
    _pw_repl,
    re.IGNORECASE,
    gate=lambda t, low: "pass" in low or "pwd" in low,
)
# Chinese: 密码：x / 密码=x / 密码是 x / 密码为 x. Passwords are ASCII in practice,
# so the value must be an ASCII run: "密码是多少" is a question, not a secret.
_add(
    "password",
    # a few words may come between ("保险柜密码何珊刚设好了：629017", "密码我改成了 Kx82!")
    r"(?P<key>(?:密码|口令|密钥|秘钥)(?:[^\s\[\]，。；！？,;!?:：=]{0,10}?))(?P<sep>\s*(?:[:=：]|是|为|為|(?:改成|设成|设为|换成)了?)\s*)"
    r"(?P<q>[\"'“”「]?)(?P<val>[A-Za-z0-9!@#$%^&*_\-+=./~]*[A-Za-z0-9!@#$%^&*_\-+=/~])(?P=q)"
    r"(?!\s*[天位次个分秒日月年条])",  # "密码有效期为 180 天" is a rule, not a password
    lambda m: (
        f"{m.group('key')}{m.group('sep')}{_tag('password')}" if len(m.group("val")) >= 3 else m.group(0)
    ),
    gate=lambda t, low: "密码" in t or "口令" in t or "密钥" in t or "秘钥" in t,
)


def mask_credentials(text: str, *, counts: dict[str, int] | None = None) -> str:
    """Replace credential-looking substrings by [REDACTED:<kind>].

    `counts`, when given, is incremented per kind of replacement made.
    """
    if not text:
        return text
    if counts is None and len(text) <= 64:
        return _mask_short(text)  # kinds, tags, short notes repeat a lot
    low = text.lower()
    for kind, gate, pattern, repl in _PATTERNS:
        if not gate(text, low):
            continue
        before = text
        if counts is None:
            text = pattern.sub(repl, text)
            if text is not before:
                low = text.lower()
            continue
        made = 0

        def counting(m: re.Match[str], _repl: Callable[[re.Match[str]], str] = repl) -> str:
            nonlocal made
            out = _repl(m)
            if out != m.group(0):
                made += 1
            return out

        text = pattern.sub(counting, text)
        if made:
            counts[kind] = counts.get(kind, 0) + made
            low = text.lower()
    return text


@functools.lru_cache(maxsize=8192)
def _mask_short(text: str) -> str:
    return mask_credentials(text, counts={})


def secret_placeholder(node: NodeData) -> str:
    """Says the fact exists; never its value, its tags or its id (the record's handle names it)."""
    return "[secret node: content withheld]"


# Value-like tokens inside secret node text: ASCII runs that mix letters and
# digits, or are long. Plain words ("Production", "password") are not values.
_VALUE_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-+/=.@!#$%^&*~]{4,}[A-Za-z0-9=]")


def secret_values(texts: Iterable[str], *, min_length: int = 6) -> list[str]:
    """Credential-like values found in secret nodes, longest first.

    The compiler masks these wherever they appear (history, summary, other
    nodes), so a secret pasted into chat does not leak through the history.
    """
    found: set[str] = set()
    for text in texts:
        for m in _VALUE_TOKEN.finditer(text or ""):
            tok = m.group(0)
            if len(tok) < min_length:
                continue
            has_digit = any(c.isdigit() for c in tok)
            has_alpha = any(c.isalpha() for c in tok)
            if (has_digit and has_alpha) or len(tok) >= 16:
                found.add(tok)
    return sorted(found, key=lambda v: (-len(v), v))


def secret_fingerprint(values: Iterable[str]) -> str:
    """Short stable digest of a set of secret values (never the values themselves)."""
    vals = sorted(set(values))
    if not vals:
        return ""
    return hashlib.sha256("\x00".join(vals).encode("utf-8")).hexdigest()[:16]


def build_secret_masker(values: Iterable[str]) -> Callable[[str], str]:
    """A function that replaces each given value by [REDACTED:secret]."""
    vals = [v for v in values if v]
    if not vals:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(v) for v in sorted(set(vals), key=lambda v: (-len(v), v))))
    tag = _tag("secret")

    def mask(text: str) -> str:
        return pattern.sub(tag, text) if text else text

    return mask
