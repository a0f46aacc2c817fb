from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "canvasweb.integrations"
    label = "integrations"
    verbose_name = "Integrations (MCP server, OpenAI-compatible endpoint)"
