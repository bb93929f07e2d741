from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "factcheck.api"
    label = "api"
    verbose_name = "REST API"
