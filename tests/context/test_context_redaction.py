from __future__ import annotations

import pytest

from canvasweb.context.redaction import (
    build_secret_masker,
    mask_credentials,
    secret_placeholder,
    secret_values,
)
from canvasweb.context.types import NodeData

CASES = [
    ("url_credentials", "connect to postgres://app:s3cretPw@db.internal:5433/app now", "s3cretPw"),
    ("password", "password=hunter2", "hunter2"),
    ("password", "passwd: correct-horse", "correct-horse"),
    ("password", "Production cache password is hunter2-Qx9.", "hunter2-Qx9"),
    ("password", "生产库密码是 hunter2-Qx9。", "hunter2-Qx9"),
    ("password", "密码：abc123xyz", "abc123xyz"),
    # a few words between the word and the value
    ("password", "仓库门锁密码小周昨天换了：480273，记一下", "480273"),
    ("password", "路由器密码我改成了 Tq7-river", "Tq7-river"),
    ("api_key", "key sk-proj-abcdefghijklmnopqrstuvwxyz012345", "sk-proj-abcdefghijklmnopqrstuvwxyz012345"),
    ("api_key", "生产库密钥 sk-prod-93af。", "sk-prod-93af"),
    ("aws_access_key", "AKIAIOSFODNN7EXAMPLE is the key id", "AKIAIOSFODNN7EXAMPLE"),
    (
        "github_token",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    ("slack_token", "slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
    ("secret", "api_key=0123456789abcdef0123", "0123456789abcdef0123"),
    (
        "secret",
        "CLIENT_SECRET: YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo0NTY=",
        "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo0NTY=",
    ),
    (
        "jwt",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("bearer_token", "Authorization: Bearer abcdef0123456789xyz", "abcdef0123456789xyz"),
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA",
    ),
]


@pytest.mark.parametrize("kind,text,secret", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_credential_pattern_is_masked(kind, text, secret):
    counts: dict[str, int] = {}
    out = mask_credentials(text, counts=counts)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert counts.get(kind) == 1


def test_url_host_and_port_survive():
    assert (
        mask_credentials("postgres://u:p4ss@db:5433/app")
        == "postgres://[REDACTED:url_credentials]@db:5433/app"
    )


CLEAN = [
    "The metrics store listens on port 5433; never commit its password.",
    "指标库端口是 5433，密码只放环境变量，不要提交到仓库。",
    "我们的数据库密码是多少？",
    "The password is stored in the vault.",
    "max_tokens=4096 and the token budget is 2000 tokens per turn",
    "the secret to success is a good api key rotation policy",
    "https://example.com:8443/path?x=1 and http://localhost:5433",
    "commit 9b5ad71b2ce5302211f9c61530b329a4922fc6a4 fixed it",
    "sk-learn is a library; task-123 is done; see RFC 7519",
    "登录态用 JWT，过期时间 6 小时。缓存层统一用 Redis，不要用别的。",
    "Use bearer authentication for the API.",
    "p99 latency 250ms, 10.0.0.5:6379, version 1.2.3",
    "密码有效期为 180 天，到期提醒。",
    "密码输错 5 次就锁定。",
]


@pytest.mark.parametrize("text", CLEAN)
def test_no_false_positives(text):
    assert mask_credentials(text) == text


def test_secret_placeholder_never_has_value_or_tags():
    n = NodeData(
        id="s1",
        content="Production cache password is hunter2-Qx9.",
        sensitivity="secret",
        tags=("credential", "prod-db"),
    )
    p = secret_placeholder(n)
    assert "s1" not in p and "withheld" in p  # the id stays on the server; the record's handle names it
    assert "hunter2" not in p and "credential" not in p and "prod-db" not in p


def test_secret_values_and_masker():
    values = secret_values(["Production cache password is hunter2-Qx9.", "生产缓存密码是 sk-prod-93af。"])
    assert "hunter2-Qx9" in values and "sk-prod-93af" in values
    assert "Production" not in values and "password" not in values
    mask = build_secret_masker(values)
    assert mask("I typed hunter2-Qx9 earlier") == "I typed [REDACTED:secret] earlier"
    assert build_secret_masker([])("unchanged") == "unchanged"
