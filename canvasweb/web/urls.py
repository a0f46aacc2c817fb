from django.urls import path

from canvasweb.common.converters import register

from . import views

register()  # the "dbid" converter

app_name = "web"

urlpatterns = [
    path("", views.app, name="home"),
    path("login/", views.app, name="login"),
    path("canvases/<dbid:canvas_id>/", views.app, name="canvas"),
    path("healthz", views.healthz, name="healthz"),
    path("healthz/", views.healthz),
]
