from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "factcheck.accounts"
    label = "accounts"
