# Canvasweb image: Daphne (ASGI) serving Django + Channels, with the built front end.
#   docker compose up --build        (see docker-compose.yml)
# Build context: the repository root. Dockerfile.dockerignore keeps .venv,
# node_modules and var/ out of the context.

# ---- stage 1: front end (Vite build) and the o200k_base tiktoken ranks ----
FROM node:20-bookworm-slim AS frontend
# Vite 8 needs npm 11 (the version the lock file was made with).
RUN npm install -g npm@11.19.1 --no-audit --no-fund --loglevel=error
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY frontend/ ./
RUN npm run build
# o200k_base (gpt-4o family) is not on PyPI; js-tiktoken carries it (checked by sha256 later).
WORKDIR /src/tiktoken
RUN npm pack js-tiktoken@1.0.21 --silent \
    && tar xzf js-tiktoken-1.0.21.tgz package/dist/ranks/o200k_base.js \
    && mv package/dist/ranks/o200k_base.js . && rm -rf package js-tiktoken-1.0.21.tgz

# ---- stage 2: the application ----
FROM python:3.11-slim-bookworm AS app
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=canvasweb.config.settings_production \
    TIKTOKEN_CACHE_DIR=/app/var/tiktoken
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin canvasweb
WORKDIR /app

# Dependencies first (cached while only the code changes): the pinned list from
# pyproject.toml, with transitive pins from scripts/constraints.txt.
COPY pyproject.toml ./
COPY scripts/constraints.txt scripts/constraints.txt
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml','rb'))['project']['dependencies']))" >/tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt -c scripts/constraints.txt \
    && rm /tmp/requirements.txt

COPY . .
COPY --from=frontend /src/frontend/dist ./frontend/dist
COPY --from=frontend /src/tiktoken/o200k_base.js /tmp/o200k_base.js
RUN pip install --no-deps -e . \
    && rm -rf canvasweb.egg-info \
    && python scripts/lib/tiktoken_cache.py "$TIKTOKEN_CACHE_DIR" /tmp/o200k_base.js \
    && rm /tmp/o200k_base.js \
    && DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && chown -R canvasweb:canvasweb /app/var

USER canvasweb
EXPOSE 8000
# --proxy-headers: client address from X-Forwarded-For (nginx sets it).
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "canvasweb.config.asgi:application"]
