from django.apps import AppConfig


class HistoryConfig(AppConfig):
    name = "canvasweb.history"
    label = "history"
