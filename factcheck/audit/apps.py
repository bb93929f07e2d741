from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "factcheck.audit"
    label = "audit"
