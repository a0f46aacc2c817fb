"""manage.py delete_user USERNAME [--no-transfer]: delete an account through the write path.

Plain deletion (e.g. from the Django admin) is refused by PROTECT on memberships and change-log actors;
see canvases.services.user_delete for what happens to the user's canvases.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from canvasweb.canvases import services
from canvasweb.common.errors import CanvasError


class Command(BaseCommand):
    help = "Delete a user: leave every canvas (logged), hand over sole ownership or refuse, then delete/deactivate."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--no-transfer",
            action="store_true",
            help="refuse instead of making another member owner where the user is the last owner",
        )

    def handle(self, *args: Any, username: str, no_transfer: bool = False, **options: Any) -> None:
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        try:
            report = services.user_delete(user=user, transfer=not no_transfer)
        except CanvasError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(json.dumps(report))
