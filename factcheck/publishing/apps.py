from django.apps import AppConfig


class PublishingConfig(AppConfig):
    name = "factcheck.publishing"
    label = "publishing"
    verbose_name = "Publishing: the organisation and the public fact-check pages"
