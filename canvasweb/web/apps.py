from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "canvasweb.web"
    label = "web"
