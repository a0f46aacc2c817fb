"""History REST routes, mounted at /api/ before the canvases API (reference: docs/api.md)."""
from django.urls import path, register_converter

from . import api

app_name = "history_api"


class CanvasIdConverter:
    """A positive integer id that fits a 64-bit column (longer numbers fall through to a 404)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(CanvasIdConverter, "history_canvas_id")

urlpatterns = [
    path("canvases/import/", api.ImportView.as_view(), name="canvas-import"),
    path("canvases/<history_canvas_id:canvas_id>/export.canvas", api.ExportView.as_view(), name="canvas-export"),
    path("canvases/<history_canvas_id:canvas_id>/activity/", api.ActivityView.as_view(), name="canvas-activity"),
    path("canvases/<history_canvas_id:canvas_id>/undo/", api.UndoView.as_view(), name="canvas-undo"),
    path("canvases/<history_canvas_id:canvas_id>/redo/", api.RedoView.as_view(), name="canvas-redo"),
    path("canvases/<history_canvas_id:canvas_id>/nodes/<uuid:node_id>/timeline/", api.NodeTimelineView.as_view(),
         name="node-timeline"),
    path("canvases/<history_canvas_id:canvas_id>/nodes/<uuid:node_id>/revert/", api.NodeRevertView.as_view(),
         name="node-revert"),
]
