"""Translation of user-facing API error messages (the `message`; never the `code`, which clients key on).

Messages are written in English where they are raised. At the response they are looked up in the
gettext catalogue (locale/zh_Hans/LC_MESSAGES/django.po) for the request's language (LocaleMiddleware,
Accept-Language). Messages with variable parts are matched by the patterns below and translated with
their values kept. A message with no translation is returned unchanged; the front end then shows the
translated meaning of its code with the English detail (frontend/src/i18n/errors.ts).
"""

from __future__ import annotations

import re

from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_noop as N_

_ROLES = {
    "an owner": N_("an owner"),
    "an editor": N_("an editor"),
    "a viewer": N_("a viewer"),
    "a non-member": N_("a non-member"),
}

# (pattern, msgid with %(name)s placeholders)
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"^(?P<role>an? [\w-]+) may not perform (?P<op>[\w.]+)$"),
        N_("%(role)s may not perform %(op)s"),
    ),
    (re.compile(r"^the agent may not perform (?P<op>[\w.]+)$"), N_("the agent may not perform %(op)s")),
    (re.compile(r"^no node (?P<id>\S+) on this canvas$"), N_("no node %(id)s on this canvas")),
    (re.compile(r"^no edge (?P<id>\S+) on this canvas$"), N_("no edge %(id)s on this canvas")),
]

# Static messages raised across the apps (kept here so makemessages finds them in one place).
_STATIC = [
    N_("no such canvas"),
    N_("no such node"),
    N_("no such member"),
    N_("no such user"),
    N_("no such conversation on this canvas"),
    N_("invalid username or password"),
    N_("invalid API token"),
    N_("the agent is switched off on this canvas"),
    N_("on this canvas the agent may only propose changes for a person to approve"),
    N_("the server failed to handle this request; nothing was changed"),
    N_("request failed"),
    N_("fields must be a non-empty object"),
    N_("the request body must be a JSON object"),
    N_("the question is empty"),
    N_("you may not see that version of the node"),
    N_("the canvas id must be a positive integer"),
    N_("Authentication credentials were not provided."),
    N_("You do not have permission to perform this action."),
    N_("CSRF Failed: CSRF token missing."),
    N_("Not found."),
]


def translate_message(message: str | None) -> str | None:
    """The message in the active language, or unchanged when there is no translation."""
    if not message or (get_language() or "en").startswith("en"):
        return message
    translated = gettext(message)
    if translated != message:
        return translated
    for pattern, msgid in _PATTERNS:
        match = pattern.match(message)
        if match:
            values = {
                k: (gettext(_ROLES[v]) if k == "role" and v in _ROLES else v)
                for k, v in match.groupdict().items()
            }
            return gettext(msgid) % values
    return message
