"""`python manage.py api_token USERNAME [--revoke]`: show (creating on first use) or revoke a user's API token.

For admins and scripts; users manage their own token with POST/DELETE /api/auth/token/.
Revoking ends the token's access at once: REST, WebSocket, MCP and /v1/ all check it per request.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from canvasweb.common import auth_services


class Command(BaseCommand):
    help = "Print a user's API token (created on first use), or revoke it with --revoke."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--revoke", action="store_true", help="delete the token (a new one can be made later)"
        )

    def handle(self, *args, **options):
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user named {options['username']!r}")
        if options["revoke"]:
            revoked = auth_services.token_revoke(user=user)
            self.stdout.write(
                f"revoked the API token of {user.get_username()}"
                if revoked
                else f"{user.get_username()} had no API token"
            )
            return
        self.stdout.write(auth_services.token_get_or_create(user=user))
