from django.apps import AppConfig


class AgentConfig(AppConfig):
    name = "canvasweb.agent"
    label = "agent"
