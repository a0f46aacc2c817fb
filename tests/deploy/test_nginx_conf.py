"""deploy/nginx.conf: canvas sockets stick to one replica, and every replica stays in every pool."""

from __future__ import annotations

import re
from pathlib import Path

CONF = (Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf").read_text(encoding="utf-8")


def _block(kind: str, name: str) -> str:
    match = re.search(rf"{kind}\s+{re.escape(name)}\s*\{{(.*?)\n    \}}", CONF, re.S)
    assert match, f"{kind} {name} not found"
    return match.group(1)


def _servers(upstream: str) -> list[str]:
    return re.findall(r"^\s*server\s+(\S+)", _block("upstream", upstream), re.M)


def test_canvas_sockets_are_hashed_on_the_path_to_one_replica():
    ws_location = re.search(r"location /ws/ \{(.*?)\}", CONF, re.S)
    assert ws_location
    upstream = re.search(r"proxy_pass http://(\w+);", ws_location.group(1))
    assert upstream
    # $uri, not $request_uri: a token in the query string must not split one canvas's sockets.
    assert re.search(r"^\s*hash \$uri consistent;", _block("upstream", upstream.group(1)), re.M)


def test_every_pool_lists_the_same_replicas():
    pools = re.findall(r"upstream\s+(\w+)\s*\{", CONF)
    assert len(pools) >= 3
    assert {tuple(_servers(p)) for p in pools} == {("web1:8000", "web2:8000")}
