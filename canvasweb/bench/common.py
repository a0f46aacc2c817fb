"""Small helpers shared by the benchmark commands: percentiles, progress bar, reports, a throwaway database."""

from __future__ import annotations

import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[rank]


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def rnd(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


class Progress:
    """A one-line progress bar on stderr (no dependency). Silent when disabled."""

    def __init__(
        self,
        total: int,
        *,
        label: str = "",
        stream: TextIO | None = None,
        enabled: bool = True,
        width: int = 28,
    ) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.width = width
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def advance(self, n: int = 1, *, note: str = "") -> None:
        self.done = min(self.total, self.done + n)
        self._draw(note)

    def _draw(self, note: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        final = self.done >= self.total
        # On a terminal redraw in place (throttled); in a log print a line per ~10 %.
        if self._tty:
            if not final and now - self._last_draw < 0.1:
                return
        else:
            step = max(1, self.total // 10)
            if not final and self.done % step:
                return
        self._last_draw = now
        filled = int(self.width * self.done / self.total)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = now - self.started
        line = f"{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s {note[:40]}"
        if self._tty:
            self.stream.write("\r" + line.ljust(100))
            if final:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._tty and self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


def md_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: Sequence[str] | None = None
) -> str:
    """A GitHub markdown table; `align` per column is 'l' or 'r' (numbers right by default)."""

    def cell(v: Any) -> str:
        if v is None:
            return "—"
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
        return str(v).replace("|", "\\|")

    if align is None:
        align = ["r" if rows and isinstance(rows[0][i], (int, float)) else "l" for i in range(len(headers))]
    lines = [
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A fixed-width table for the terminal."""

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
        return str(v)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(out)


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")


def machine_info() -> dict[str, Any]:
    """CPU model, core count, RAM and software versions, for the report header."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass
    try:
        load = [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover - not on Linux/macOS
        load = None
    return {
        "cpu_model": model or platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
        "ram_gb": ram_gb,
        "python": platform.python_version(),
        "platform": platform.platform(),
        # 1/5/15-minute load averages when the report was written: other work on
        # the machine skews timings, so say how busy it was.
        "load_average": load,
        "code": code_version(),
    }


def code_version() -> dict[str, Any]:
    """The commit the benchmark ran on, and whether the working tree had uncommitted changes."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "modified_files": None}
    return {
        "commit": commit or None,
        "modified_files": len([line for line in status.splitlines() if line.strip()]),
    }


def started_at() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@contextmanager
def temporary_sqlite_database(*, keep: bool = False) -> Iterator[Path]:
    """Point Django's default database at a fresh SQLite file for the block, migrated; then restore.

    Used by drift_bench so a benchmark never touches the configured database.
    Durability is switched off (synchronous=OFF): nothing here needs to
    survive a crash and the file is deleted afterwards.
    """
    from django.core.management import call_command
    from django.db import connections

    workdir = Path(tempfile.mkdtemp(prefix="canvasweb-bench-db-"))
    path = workdir / "bench.sqlite3"
    old = connections.settings["default"]
    new = dict(old)
    new.update(
        ENGINE="django.db.backends.sqlite3",
        NAME=str(path),
        USER="",
        PASSWORD="",
        HOST="",
        PORT="",
        OPTIONS={"timeout": 20, "init_command": "PRAGMA synchronous=OFF;PRAGMA journal_mode=MEMORY"},
        CONN_MAX_AGE=0,
        TEST={},
    )

    def drop_connection() -> None:
        try:
            connections["default"].close()
        except Exception:  # pragma: no cover - closing a broken connection
            pass
        try:
            del connections["default"]
        except AttributeError:
            pass

    drop_connection()
    connections.settings["default"] = new
    try:
        call_command("migrate", interactive=False, verbosity=0)
        yield path
    finally:
        drop_connection()
        connections.settings["default"] = old
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
