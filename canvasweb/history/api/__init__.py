"""REST endpoints for history: node timelines, the activity feed, revert, undo/redo, JSON Canvas.

Thin views, like canvasweb/canvases/api/views/: parse, call a selector or a
service, shape the answer. Writes go through canvasweb.history.services, which
hands every change to the one write path. Errors are CanvasErrors rendered as
{"error": {code, message, field}}; a rejected import adds `problems`.
Reference: docs/api.md, section "History, undo and JSON Canvas".

`views.py` holds the endpoints, `serializers.py` the response shapes for the
OpenAPI schema, `params.py` the shared path/query parameters and their parsing.
"""
