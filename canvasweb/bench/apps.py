from django.apps import AppConfig


class BenchConfig(AppConfig):
    name = "canvasweb.bench"
    label = "bench"
    verbose_name = "Benchmarks"
