from django.apps import AppConfig


class FactChecksConfig(AppConfig):
    name = "factcheck.factchecks"
    label = "factchecks"
    verbose_name = "Fact-check library"

    def ready(self) -> None:
        # The learning page offers "Refit now" for the matcher: the desk's decisions teach it.
        from factcheck.factchecks.refit import matching_refit
        from factcheck.learning.models import ModelKind
        from factcheck.learning.registry import register_refit

        register_refit(ModelKind.MATCHING, matching_refit)
