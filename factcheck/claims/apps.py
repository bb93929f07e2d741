from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "factcheck.claims"
    label = "claims"
