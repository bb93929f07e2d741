"""python manage.py create_api_token USERNAME [--name NAME]: prints a new API token once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from factcheck.accounts.roles import Role, has_role
from factcheck.api.services import api_token_create


class Command(BaseCommand):
    help = "Create an API token for a user and print it (it is stored hashed and cannot be shown again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="What the token is for; unique per user (default: cli).")

    def handle(self, *args: Any, username: str, name: str, **options: Any) -> None:
        try:
            user = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist as exc:
            raise CommandError(f"No user {username!r}.") from exc
        try:
            token, secret = api_token_create(user=user, name=name)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        if not has_role(user, Role.REVIEWER):
            self.stderr.write(f"Warning: {username} has no role yet; the API answers 403/404 until they get one.")
        self.stdout.write(secret)
        self.stderr.write(f"Token {token.prefix}… ({token.name}) for {username}. Send it as: Authorization: Token <token>")
