"""Create the demo reviewer, editor and admin with generated passwords, printed once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from factcheck.accounts.roles import Role
from factcheck.accounts.services import roles_ensure_groups, user_create_with_role, user_reset_password

DEMO_USERS = (("reviewer", Role.REVIEWER), ("editor", Role.EDITOR), ("admin", Role.ADMIN))


class Command(BaseCommand):
    help = "Create demo users (reviewer, editor, admin). Passwords are generated and printed once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--reset", action="store_true", help="Generate and print new passwords for existing demo users.")

    def handle(self, *args: Any, **options: Any) -> None:
        roles_ensure_groups()
        user_model = get_user_model()
        for username, role in DEMO_USERS:
            existing = user_model.objects.filter(username=username).first()
            if existing is None:
                _, password = user_create_with_role(username=username, role=role)
                self.stdout.write(f"  {role.name.lower():9} login: {username:9} password: {password}")
            elif options["reset"]:
                password = user_reset_password(user=existing)
                self.stdout.write(f"  {role.name.lower():9} login: {username:9} password: {password} (reset)")
            else:
                self.stdout.write(
                    f"  {role.name.lower():9} login: {username:9} (exists; password printed when created — "
                    "`make passwords` prints new ones)"
                )
