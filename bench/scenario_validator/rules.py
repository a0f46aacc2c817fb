"""What the drift scenario format allows, and the thresholds the checks use."""

from __future__ import annotations

FORMAT = "drift-scenario/1"
ROLES = {"owner", "editor", "viewer"}
SENSITIVITIES = {"public", "internal", "secret"}
RELATIONS = {"depends_on", "causes", "conflicts_with", "relates_to"}
NODE_FIELDS = {"key", "content", "x", "y", "weight", "tags", "pinned", "sensitivity"}
UPDATE_FIELDS = {"content", "weight", "tags", "pinned", "sensitivity"}
OP_FIELDS = {
    "add_node": ({"op", "key", "content", "x", "y"}, {"weight", "tags", "pinned", "sensitivity"}),
    "update_node": ({"op", "key"}, UPDATE_FIELDS),
    "move_node": ({"op", "key", "x", "y"}, set()),
    "supersede": ({"op", "old", "new"}, set()),
    "link": ({"op", "source", "target", "relation"}, set()),
    "archive": ({"op", "key"}, set()),
}

# Probe tags named in the drift FORMAT.md (others are allowed, with a warning).
KNOWN_TAGS = {
    "paraphrase",
    "long-message",
    "correction-in-chat",
    "corrected-twice",
    "correction-by-supersede",
    "far-unpinned",
    "busy-canvas",
    "linked",
    "role-viewer",
    "role-editor",
    "distractor",
    "archived",
    "never-placed",  # used by the development sets: the fact was never put on the canvas
}
CORRECTION_TAGS = {"correction-in-chat", "corrected-twice", "correction-by-supersede"}
LONG_TURNS = 300  # a conversation this long counts as "long" in the summary

NEAR = 700.0  # effective distance (distance / weight) counted as "near the viewport"
FAR = 1500.0  # raw distance counted as "far off the viewport"
MIN_PROBE_TURN = 30
MAX_TURN_HITS = 4

# Drift kinds, in the order used in reports.
KINDS = [
    "supersede",
    "far-anchor",
    "linked",
    "question-match",
    "secret-viewer",
    "secret-editor",
    "archived",
    "uncaptured",
]
