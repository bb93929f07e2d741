from django.apps import AppConfig


class SourcesConfig(AppConfig):
    """Outlets' feeds and fact-checkers' pages polled on a schedule, and links reviewers paste."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "factcheck.sources"
    label = "sources"
