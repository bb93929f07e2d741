from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "factcheck.reports"
    label = "reports"
    verbose_name = "Exports and reports"
