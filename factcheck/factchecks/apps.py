from django.apps import AppConfig


class FactChecksConfig(AppConfig):
    name = "factcheck.factchecks"
    label = "factchecks"
    verbose_name = "Fact-check library"
