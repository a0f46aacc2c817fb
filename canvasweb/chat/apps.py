from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "canvasweb.chat"
    label = "chat"
