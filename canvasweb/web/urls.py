from django.urls import path

from canvasweb.canvases.api.urls import DatabaseIdConverter  # noqa: F401  (registers the "dbid" converter)

from . import views

app_name = "web"

urlpatterns = [
    path("", views.app, name="home"),
    path("login/", views.app, name="login"),
    path("canvases/<dbid:canvas_id>/", views.app, name="canvas"),
    path("healthz", views.healthz, name="healthz"),
    path("healthz/", views.healthz),
]
