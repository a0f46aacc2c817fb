"""Start real servers for cross-process tests and benchmarks: Redis, a database, Daphne processes.

Used by tests/crossprocess, tests/e2e, tests/reliability and `manage.py bench_sync`.
Everything binds to 127.0.0.1 and is stopped by `Cluster.stop()`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        with socket.socket() as sock:
            sock.settimeout(0.2)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


@dataclass
class RedisServer:
    port: int
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @classmethod
    def start(cls, port: int | None = None) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (scripts/setup.sh installs it)")
        server = cls(port=port or free_port())
        server.proc = subprocess.Popen(
            [binary, "--port", str(server.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(server.port, proc=server.proc)
        return server

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _with_database(url: str, name: str) -> str:
    parts = urlparse(url)
    return urlunparse(parts._replace(path="/" + name))


def create_postgres_database(server_url: str) -> str:
    """A fresh, empty database on the server at `server_url`; returns its URL."""
    import psycopg

    name = f"canvasweb_{secrets.token_hex(4)}"
    with psycopg.connect(_with_database(server_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return _with_database(server_url, name)


def drop_postgres_database(url: str) -> None:
    import psycopg

    name = urlparse(url).path.lstrip("/")
    with psycopg.connect(_with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Cluster:
    """N Daphne processes sharing one database and one channel layer."""

    database_url: str
    redis_url: str | None
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    extra_env: dict = field(default_factory=dict)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="canvasweb-cluster-")))
    # The Redis process behind redis_url when the caller started one (the fault actions restart it).
    redis: RedisServer | None = None

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "DJANGO_SETTINGS_MODULE"))}
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "canvasweb.config.settings",
                "DATABASE_URL": self.database_url,
                "PYTHONUNBUFFERED": "1",
                "DJANGO_DEBUG": "false",
                "DJANGO_ALLOWED_HOSTS": "localhost,127.0.0.1",
            }
        )
        if self.redis_url:
            env["REDIS_URL"] = self.redis_url
        else:
            env.pop("REDIS_URL", None)
        env.update(self.extra_env)
        return env

    def manage(self, *args: str, input_text: str | None = None) -> str:
        result = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            cwd=ROOT,
            env=self.env(),
            input=input_text,
            capture_output=True,
            text=True,
            timeout=180,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def migrate(self) -> None:
        self.manage("migrate", "--noinput", "-v", "0")

    def start(self, count: int = 2) -> Cluster:
        for _ in range(count):
            self.start_one()
        return self

    def start_one(self, port: int | None = None) -> int:
        port = port or free_port()
        log = self.workdir / f"daphne-{port}.log"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "canvasweb.config.asgi:application",
            ],
            cwd=ROOT,
            env=self.env(),
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(port, proc=proc, timeout=30)
        self.ports.append(port)
        self.procs.append(proc)
        self.logs.append(log)
        return port

    def kill(self, index: int, sig: int = signal.SIGKILL) -> int:
        proc = self.procs[index]
        proc.send_signal(sig)
        proc.wait(10)
        return self.ports[index]

    def restart(self, index: int) -> None:
        port = self.ports[index]
        log = self.logs[index]
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "canvasweb.config.asgi:application",
            ],
            cwd=ROOT,
            env=self.env(),
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(port, proc=proc, timeout=30)
        self.procs[index] = proc

    def url(self, index: int = 0) -> str:
        return f"http://127.0.0.1:{self.ports[index]}"

    def ws_url(self, index: int, canvas_id: int) -> str:
        return f"ws://127.0.0.1:{self.ports[index]}/ws/canvases/{canvas_id}/"

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()

    def log_text(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}" for log in self.logs if log.exists()
        )


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'cluster.sqlite3'}"
