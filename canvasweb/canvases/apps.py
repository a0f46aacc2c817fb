from django.apps import AppConfig


class CanvasesConfig(AppConfig):
    name = "canvasweb.canvases"
    label = "canvases"
