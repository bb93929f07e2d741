from django.apps import AppConfig


class LearningConfig(AppConfig):
    """Model versions the desk's own decisions refit: register, compare, promote, roll back."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "factcheck.learning"
    label = "learning"
