from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "factcheck.runs"
    label = "runs"
    verbose_name = "Pipeline runs"
