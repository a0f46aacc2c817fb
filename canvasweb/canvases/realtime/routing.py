from django.urls import path

from .consumers import CanvasConsumer

websocket_urlpatterns = [
    path("ws/canvases/<int:canvas_id>/", CanvasConsumer.as_asgi()),
]
