from django.apps import AppConfig


class ArticlesConfig(AppConfig):
    name = "factcheck.articles"
    label = "articles"
