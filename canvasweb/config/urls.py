from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("canvasweb.canvases.api.urls")),
    path("", include("canvasweb.web.urls")),
]
