"""Canvasweb settings.

Everything has an embedded default so `scripts/run.sh` works on a fresh machine:
SQLite, the in-process channel layer, no model endpoint. Environment variables
switch to Postgres (DATABASE_URL), Redis (REDIS_URL) and a model (LLM_*).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# scripts/setup.sh puts the cl100k and o200k tokenizer files here: tiktoken never downloads.
os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(BASE_DIR / "var" / "tiktoken"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "dev-insecure-canvasweb-key-change-me-in-production-0123456789"
)
DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets served locally (no CDN)
    "channels",
    "django_vite",
    "canvasweb.canvases",
    "canvasweb.history",
    "canvasweb.chat",
    "canvasweb.agent",
    "canvasweb.integrations",
    "canvasweb.web",
    "canvasweb.bench",
    "canvasweb.reliability",
]

MIDDLEWARE = [
    # First: a Host outside ALLOWED_HOSTS on /api/ or /v1/ is a JSON 400, not Django's HTML page.
    "canvasweb.common.api_errors.APIHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "canvasweb.common.static_middleware.StaticFilesMiddleware",  # WhiteNoise, async-capable
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Accept-Language picks en or zh-hans for templates and API error messages (codes never change).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so it sees exceptions from every view: /api/ answers 500 INTERNAL as JSON, never a debug page.
    "canvasweb.common.api_errors.APIJSONErrorsMiddleware",
]

ROOT_URLCONF = "canvasweb.config.urls"
ASGI_APPLICATION = "canvasweb.config.asgi.application"
WSGI_APPLICATION = "canvasweb.config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{os.environ.get('CANVASWEB_SQLITE_PATH', BASE_DIR / 'var' / 'canvasweb.sqlite3')}",
        # Keep server connections open between requests and ops (a new Postgres
        # connection per op costs several ms); health checks drop dead ones.
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL + a busy timeout let several Daphne workers share the file without
    # "database is locked"; IMMEDIATE transactions serialise writers up front.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    # A file (not :memory:) so live-server tests can share it; one per process so
    # parallel test runs on one machine do not trample each other.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "var" / f"test-{os.getpid()}.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# collectstatic target (production images); in development WhiteNoise serves from the finders.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "var" / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATICFILES_DIRS = [p for p in (BASE_DIR / "static", FRONTEND_DIST) if p.exists()]
WHITENOISE_USE_FINDERS = True
DJANGO_VITE = {
    "default": {
        "dev_mode": env_bool("VITE_DEV_MODE", False),
        "manifest_path": FRONTEND_DIST / "manifest.json",
        "static_url_prefix": "",
    }
}

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: anonymous requests then get 401 with WWW-Authenticate, not 403.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "canvasweb.common.api_errors.api_exception_handler",
    "DEFAULT_PARSER_CLASSES": ["canvasweb.common.parsers.LimitedJSONParser"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Canvasweb API",
    "DESCRIPTION": "Shared canvas working memory for LLM conversations. See docs/api.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Real-time: in-process layer by default, Redis when REDIS_URL is set.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's layer; a batch is not written back to the process that committed it
            # (its sockets have it already, canvases/realtime/redis_layer.py).
            "BACKEND": "canvasweb.canvases.realtime.redis_layer.OriginSkippingRedisChannelLayer",
            # docs/reliability.md, "Channel layer": delivery is at most once; a dropped message is a
            # revision gap the client (or the socket's 5 s sync check) heals from the database.
            "CONFIG": {
                # Timeouts: a hung Redis fails calls within 10 s (> the 5 s BZPOPMIN of receive) instead
                # of blocking; pooled connections idle > 5 s are pinged first (stale after a restart).
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_connect_timeout": 2,
                        "socket_timeout": 10,
                        "health_check_interval": 5,
                    }
                ],
                # Per Daphne process in Redis, and per socket in the process: messages not yet taken.
                # Beyond it the newest (Redis) or oldest (local) are dropped, never memory growth.
                "capacity": env_int("CHANNEL_CAPACITY", 200),
                # A message nobody took within 30 s is stale: the sync check has healed it by then.
                "expiry": 30,
                # Every socket re-adds itself every ~5 s, so 5 min only drops memberships of dead processes.
                "group_expiry": env_int("CHANNEL_GROUP_EXPIRY", 300),
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 200}}
    }

CANVASWEB: dict[str, Any] = {
    # WebSocket frame limit in bytes; larger frames are closed with code 1009.
    "WS_MAX_FRAME_BYTES": env_int("CANVASWEB_WS_MAX_FRAME_BYTES", 64 * 1024),
    # A client further behind than this many revisions gets a snapshot instead of changes.
    "CATCH_UP_MAX_REVISIONS": env_int("CANVASWEB_CATCH_UP_MAX_REVISIONS", 500),
    # Ops per connection per second before the server throttles.
    "WS_OPS_PER_SECOND": env_int("CANVASWEB_WS_OPS_PER_SECOND", 50),
    # A change that overtakes an earlier revision (two server processes) waits this long for it.
    "WS_REORDER_HOLD_MS": env_int("CANVASWEB_WS_REORDER_HOLD_MS", 50),
    # A group commit of several revisions reaches each socket as one `changes` frame (off: one
    # `change` frame per revision).
    "WS_BATCH_FRAMES": env_bool("CANVASWEB_WS_BATCH_FRAMES", True),
    # The sockets of a canvas in one server process share one channel-layer group member, which fans
    # each message out to them in memory (canvases/realtime/local_fanout.py); off: one member per socket.
    "WS_LOCAL_FANOUT": env_bool("CANVASWEB_WS_LOCAL_FANOUT", True),
    # Daphne sends a WebSocket frame at once when nothing is queued on the connection, not after a
    # reactor turn (canvases/realtime/write_through.py); off: Twisted's buffered write for every frame.
    "WS_WRITE_THROUGH": env_bool("CANVASWEB_WS_WRITE_THROUGH", True),
    # The server's GIL switch interval (config/asgi.py); Python's default is 5,000 µs.
    "GIL_SWITCH_INTERVAL_US": env_int("CANVASWEB_GIL_SWITCH_INTERVAL_US", 500),
    "PRESENCE_MIN_INTERVAL_MS": env_int("CANVASWEB_PRESENCE_MIN_INTERVAL_MS", 50),
    "MAX_BATCH_OPS": env_int("CANVASWEB_MAX_BATCH_OPS", 500),
    # window.__canvasweb for browser tests and the browser benchmark; off everywhere else.
    "TEST_HOOKS": env_bool("CANVASWEB_TEST_HOOKS", False),
    # Retention (manage.py prune_history): op receipts answer resends of an op id; keep them longer than
    # any client stays offline. Security events are the refusal log.
    "OP_RECEIPT_RETENTION_DAYS": env_int("CANVASWEB_OP_RECEIPT_RETENTION_DAYS", 30),
    "SECURITY_EVENT_RETENTION_DAYS": env_int("CANVASWEB_SECURITY_EVENT_RETENTION_DAYS", 90),
    # Identical refusals (same user, canvas, channel, op type, code) within this window share one row.
    "SECURITY_EVENT_COALESCE_SECONDS": env_int("CANVASWEB_SECURITY_EVENT_COALESCE_SECONDS", 60),
    # POST /api/auth/login/ and /api/auth/token/ per client address (DRF rate syntax; "off" disables).
    "AUTH_THROTTLE_RATE": os.environ.get("CANVASWEB_AUTH_THROTTLE_RATE", "20/minute"),
    # Memory held per process for chat context (docs/benchmarks.md, "Memory"): canvas indexes
    # (node data + spatial grid + keyword postings), prepared node/message text with token counts,
    # and token counts keyed by text. Each is an LRU bounded by an estimate of its bytes.
    "INDEX_CACHE_BYTES": env_int("CANVASWEB_INDEX_CACHE_BYTES", 512 * 1024 * 1024),
    "TOKEN_CACHE_BYTES": env_int("CANVASWEB_TOKEN_CACHE_BYTES", 128 * 1024 * 1024),
    "TOKEN_COUNT_CACHE_BYTES": env_int("CANVASWEB_TOKEN_COUNT_CACHE_BYTES", 32 * 1024 * 1024),
    # A cached canvas index further behind than this many revisions is rebuilt, not caught up.
    "INDEX_CATCH_UP_MAX_REVISIONS": env_int("CANVASWEB_INDEX_CATCH_UP_MAX_REVISIONS", 2000),
    # Where context compiles, fact capture and canvas-index updates run (chat/executor.py):
    # "process" (worker processes, each canvas always on the same one: no GIL shared with the
    # sockets), "thread" (a thread pool in this process) or "inline" (tests, commands).
    "COMPILE_MODE": os.environ.get("CANVASWEB_COMPILE_MODE", "process"),
    "COMPILE_WORKERS": env_int("CANVASWEB_COMPILE_WORKERS", 2),
    # Worker processes run below the sockets' CPU priority (os.nice increment; 0 = same priority).
    "COMPILE_WORKER_NICE": env_int("CANVASWEB_COMPILE_WORKER_NICE", 10),
    "COMPILE_THREADS": env_int("CANVASWEB_COMPILE_THREADS", 2),
    # Group commit (canvases/realtime/committer.py): ops per transaction, and per socket per transaction
    # while other sockets wait too (a socket alone on the canvas gets the whole batch).
    "GROUP_COMMIT_MAX_OPS": env_int("CANVASWEB_GROUP_COMMIT_MAX_OPS", 200),
    "GROUP_COMMIT_OPS_PER_SOCKET": env_int("CANVASWEB_GROUP_COMMIT_OPS_PER_SOCKET", 8),
    # Threads per process that run group commits (a canvas always on the same one), apart from the
    # thread Channels shares for all other database work; 0 = commit on that shared thread.
    "GROUP_COMMIT_THREADS": env_int("CANVASWEB_GROUP_COMMIT_THREADS", 1),
    # A commit thread's connection that committed a batch less than this long ago is used without
    # Django's health check (a round trip per batch); after a longer pause it is checked as before.
    "GROUP_COMMIT_HEALTH_CHECK_IDLE_MS": env_int("CANVASWEB_GROUP_COMMIT_HEALTH_CHECK_IDLE_MS", 1000),
}

# The agent (canvasweb/agent, docs/agent.md): caps per chat turn and per-user rate limits.
AGENT: dict[str, Any] = {
    "ENABLED": env_bool("AGENT_ENABLED", True),
    # Tool rounds per turn (model -> tool calls -> results -> model ...) and writes per turn.
    "MAX_ROUNDS": env_int("AGENT_MAX_ROUNDS", 3),
    "MAX_WRITES_PER_TURN": env_int("AGENT_MAX_WRITES_PER_TURN", 10),
    "MAX_READS_PER_TURN": env_int("AGENT_MAX_READS_PER_TURN", 20),
    # Tool calls handled per model response; the rest are refused (and recorded).
    "MAX_CALLS_PER_ROUND": env_int("AGENT_MAX_CALLS_PER_ROUND", 20),
    # Per user, over a sliding window: agent turns started and writes applied or proposed.
    "RATE_WINDOW_SECONDS": env_int("AGENT_RATE_WINDOW_SECONDS", 3600),
    "MAX_TURNS_PER_WINDOW": env_int("AGENT_MAX_TURNS_PER_WINDOW", 120),
    "MAX_WRITES_PER_WINDOW": env_int("AGENT_MAX_WRITES_PER_WINDOW", 300),
    # What read tools return: results per search, characters of node text per result.
    "SEARCH_LIMIT": env_int("AGENT_SEARCH_LIMIT", 8),
    "READ_MAX_CHARS": env_int("AGENT_READ_MAX_CHARS", 1500),
}

# The model: any OpenAI-compatible endpoint. Empty LLM_BASE_URL + LLM_API_KEY = no model.
LLM: dict[str, Any] = {
    "BASE_URL": os.environ.get("LLM_BASE_URL", ""),
    "API_KEY": os.environ.get("LLM_API_KEY", ""),
    "MODEL": os.environ.get("LLM_MODEL", "gpt-4o-mini"),
    "CONTEXT_WINDOW": env_int("LLM_CONTEXT_WINDOW", 16000),
    "MAX_OUTPUT_TOKENS": env_int("LLM_MAX_OUTPUT_TOKENS", 1024),
    "TIMEOUT_SECONDS": float(os.environ.get("LLM_TIMEOUT_SECONDS", "60")),
    "MAX_RETRIES": env_int("LLM_MAX_RETRIES", 2),
    "ENCODING": os.environ.get("LLM_TOKEN_ENCODING", ""),
    # Optional: an embeddings model on the same endpoint enables hybrid (BM25 + vector) ranking.
    "EMBEDDINGS_MODEL": os.environ.get("LLM_EMBEDDINGS_MODEL", ""),
}

# Fact capture by the model (chat/extraction.py) when one is configured; the rules are the fallback.
CAPTURE: dict[str, Any] = {
    "WITH_MODEL": os.environ.get("CAPTURE_WITH_MODEL", "1") != "0",
    "TIMEOUT_SECONDS": float(os.environ.get("CAPTURE_TIMEOUT_SECONDS", "20")),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
    },
}

SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
