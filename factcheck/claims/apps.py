from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "factcheck.claims"
    label = "claims"

    def ready(self) -> None:
        # The learning page offers "Refit now" for the check-worthiness kind: its ranking model
        # learns from the desk's triage decisions kept here (factcheck.claims.ranking.refit).
        from factcheck.claims.ranking.refit import checkworthiness_refit
        from factcheck.learning.models import ModelKind
        from factcheck.learning.registry import register_refit

        register_refit(ModelKind.CHECKWORTHINESS, checkworthiness_refit)
