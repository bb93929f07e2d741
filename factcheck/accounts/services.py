"""Writes for users and roles."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from django.db import transaction

from factcheck.accounts.roles import GROUP_FOR_ROLE, Role


def roles_ensure_groups() -> None:
    for name in GROUP_FOR_ROLE.values():
        Group.objects.get_or_create(name=name)


@transaction.atomic
def user_create_with_role(*, username: str, role: Role, password: str | None = None, email: str = "") -> tuple[AbstractUser, str]:
    """Create a user in the role's group; returns the user and the password it was given."""
    roles_ensure_groups()
    password = password or secrets.token_urlsafe(12)
    user_model = get_user_model()
    user = user_model(username=username, email=email, is_staff=role >= Role.ADMIN, is_superuser=role >= Role.ADMIN)
    user.set_password(password)
    user.full_clean()
    user.save()
    user.groups.add(Group.objects.get(name=GROUP_FOR_ROLE[role]))
    return user, password


@transaction.atomic
def user_reset_password(*, user: AbstractUser) -> str:
    password = secrets.token_urlsafe(12)
    user.set_password(password)
    user.save(update_fields=["password"])
    return password
