"""DRF throttle for the password endpoints (POST /api/auth/login/ and POST /api/auth/token/).

Counted per client address in Django's cache (per process with the default local-memory cache; set
CACHES to Redis to share the count between Daphne processes). The rate is CANVASWEB_AUTH_THROTTLE_RATE
("20/minute" by default; DRF syntax N/second|minute|hour|day; "off" disables). Over it: 429 RATE_LIMITED
with Retry-After, before the body is read or a password hashed.
"""

from __future__ import annotations

from rest_framework.throttling import SimpleRateThrottle

from canvasweb.common.config import canvasweb_config


class AuthRateThrottle(SimpleRateThrottle):
    scope = "auth"

    def get_rate(self):
        rate = canvasweb_config().get("AUTH_THROTTLE_RATE", "20/minute")
        return None if not rate or str(rate).lower() == "off" else rate

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
