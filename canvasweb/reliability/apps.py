from django.apps import AppConfig


class ReliabilityConfig(AppConfig):
    """The soak command (`manage.py soak`): the reliability suite at full counts, with a report."""

    name = "canvasweb.reliability"
    label = "reliability"
    verbose_name = "Reliability"
