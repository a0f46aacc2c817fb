"""REST API routes, mounted at /api/ (reference: docs/api.md)."""

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from canvasweb.common.converters import register

from . import views

register()  # the "dbid" converter used below

app_name = "api"


@csrf_exempt  # it changes nothing; without this an unsafe method got Django's HTML CSRF page
def unknown_endpoint(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    return JsonResponse(
        {
            "error": {
                "code": "NOT_FOUND",
                "message": f"no API endpoint at {request.path} (API paths end with /)",
                "field": None,
            }
        },
        status=404,
    )


urlpatterns = [
    path("auth/csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/login/", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me/", views.MeView.as_view(), name="auth-me"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("canvases/", views.CanvasListView.as_view(), name="canvas-list"),
    path("canvases/<dbid:canvas_id>/", views.CanvasDetailView.as_view(), name="canvas-detail"),
    path("canvases/<dbid:canvas_id>/members/", views.MemberListView.as_view(), name="member-list"),
    path(
        "canvases/<dbid:canvas_id>/members/<dbid:user_id>/",
        views.MemberDetailView.as_view(),
        name="member-detail",
    ),
    path("canvases/<dbid:canvas_id>/snapshot/", views.SnapshotView.as_view(), name="canvas-snapshot"),
    path("canvases/<dbid:canvas_id>/ops/", views.OpsView.as_view(), name="canvas-ops"),
    path("canvases/<dbid:canvas_id>/changes/", views.ChangesView.as_view(), name="canvas-changes"),
    path(
        "canvases/<dbid:canvas_id>/nodes/<uuid:node_id>/history/",
        views.NodeHistoryView.as_view(),
        name="node-history",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    # Anything else under /api/ answers in the API's error shape, never an HTML page.
    # (?s): a path with an encoded newline is unknown too (it fell through to the HTML 404 page).
    re_path(r"^[\s\S]*$", unknown_endpoint),
]
