from django.urls import re_path

from .consumers import CanvasConsumer

websocket_urlpatterns = [
    # At most 18 digits: a longer id could not be a row and would overflow the database integer.
    re_path(r"^ws/canvases/(?P<canvas_id>[0-9]{1,18})/$", CanvasConsumer.as_asgi()),
]
