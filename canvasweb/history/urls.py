"""History REST routes, mounted at /api/ before the canvases API (reference: docs/api.md)."""

from django.urls import path

from canvasweb.common.converters import register

from . import audit_api
from .api import views as history_views

app_name = "history_api"


register()  # the shared "dbid" converter

urlpatterns = [
    path("canvases/import/", history_views.ImportView.as_view(), name="canvas-import"),
    path("canvases/<dbid:canvas_id>/export.canvas", history_views.ExportView.as_view(), name="canvas-export"),
    path("canvases/<dbid:canvas_id>/activity/", history_views.ActivityView.as_view(), name="canvas-activity"),
    path("canvases/<dbid:canvas_id>/audit/", audit_api.AuditView.as_view(), name="canvas-audit"),
    path(
        "canvases/<dbid:canvas_id>/audit/verify/",
        audit_api.AuditVerifyView.as_view(),
        name="canvas-audit-verify",
    ),
    path("canvases/<dbid:canvas_id>/undo/", history_views.UndoView.as_view(), name="canvas-undo"),
    path("canvases/<dbid:canvas_id>/redo/", history_views.RedoView.as_view(), name="canvas-redo"),
    path(
        "canvases/<dbid:canvas_id>/nodes/<uuid:node_id>/timeline/",
        history_views.NodeTimelineView.as_view(),
        name="node-timeline",
    ),
    path(
        "canvases/<dbid:canvas_id>/nodes/<uuid:node_id>/revert/",
        history_views.NodeRevertView.as_view(),
        name="node-revert",
    ),
]
