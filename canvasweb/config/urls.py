from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    # The canvases API ends with a catch-all for unknown /api/ paths: keep it last.
    path("api/", include("canvasweb.chat.api.urls")),
    path("api/", include("canvasweb.history.urls")),
    path("api/", include("canvasweb.agent.api.urls")),
    path("api/", include("canvasweb.canvases.api.urls")),
    # The OpenAI-compatible endpoint (docs/integrations.md); the MCP server is mounted in asgi.py.
    path("v1/", include("canvasweb.integrations.openai_compat.urls")),
    path("", include("canvasweb.web.urls")),
]

# A 500 under /api/ is JSON in the API's error shape (canvasweb/common/api_errors.py).
handler500 = "canvasweb.common.api_errors.handler500"
