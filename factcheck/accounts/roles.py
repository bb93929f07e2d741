"""Roles are Django groups; this module is the one place that says what each may do.

reviewer: triages, researches, drafts verdicts.
editor:   everything a reviewer does, plus approves/returns verdicts and reassigns work.
admin:    users, imports, settings (and everything an editor does).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase


class Role(enum.IntEnum):
    NONE = 0
    REVIEWER = 1
    EDITOR = 2
    ADMIN = 3


GROUP_FOR_ROLE = {Role.REVIEWER: "reviewer", Role.EDITOR: "editor", Role.ADMIN: "admin"}
ROLE_FOR_GROUP = {name: role for role, name in GROUP_FOR_ROLE.items()}


def role_of(user: AbstractBaseUser | AnonymousUser) -> Role:
    # The project's user model is auth's User (groups, the superuser flag): nothing else has a role.
    if not isinstance(user, User) or not user.is_active:
        return Role.NONE
    if user.is_superuser:
        return Role.ADMIN
    cached = getattr(user, "_factcheck_role", None)
    if cached is not None:
        return cached
    return remember_role(user, user.groups.values_list("name", flat=True))


def remember_role(user: AbstractBaseUser | AnonymousUser, group_names: Iterable[str]) -> Role:
    """The role of a user in these groups, kept on the user object (one request's lifetime)."""
    role = max((ROLE_FOR_GROUP.get(name, Role.NONE) for name in group_names), default=Role.NONE)
    user._factcheck_role = role  # type: ignore[union-attr]  # a memo for the request's lifetime, not a model field
    return role


def has_role(user: AbstractBaseUser | AnonymousUser, minimum: Role) -> bool:
    return role_of(user) >= minimum


def signed_in_user(request: HttpRequest) -> User:
    """The user of a request that role_required let through: signed in, so never anonymous."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("This needs a signed-in user.")
    return user


def role_required(minimum: Role) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """403 for a logged-in user below `minimum`; login itself is enforced by the middleware."""

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not has_role(request.user, minimum):
                raise PermissionDenied(f"This needs the {minimum.name.lower()} role.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
