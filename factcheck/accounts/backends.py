"""The login backend: Django's, loading a user's role with the user."""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import connections
from django.http import HttpRequest

from factcheck.accounts import ratelimit
from factcheck.accounts.roles import remember_role


@cache
def _user_with_groups_sql() -> tuple[list[str], str]:
    user_model = get_user_model()
    quote = connections[user_model._default_manager.db].ops.quote_name
    columns = [field.attname for field in user_model._meta.concrete_fields]
    memberships = user_model.groups.through._meta.db_table
    sql = (
        f"SELECT {', '.join('u.' + quote(column) for column in columns)},"
        f" ARRAY(SELECT g.name FROM {quote(Group._meta.db_table)} g JOIN {quote(memberships)} m ON m.group_id = g.id"
        f" WHERE m.user_id = u.id)"
        f" FROM {quote(user_model._meta.db_table)} u WHERE u.{quote(user_model._meta.pk.column)} = %s"
    )
    return columns, sql


class UserWithRoleBackend(ModelBackend):
    """Every request loads its user (AuthenticationMiddleware) and nearly every view then
    checks the role: the user's group names come in the same query, not a second one. The
    query is written out (0.16 ms of CPU against 0.86 ms for the same through the ORM).

    Every password login through a request (the app's form, the admin's) is throttled here,
    so no login form can skip it: the attempt is counted first, and one past the limit is
    refused without checking the password (request.login_throttled tells the form why)."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any) -> Any:
        if request is None:
            # No client to throttle: management commands and the test client's login().
            return super().authenticate(request, username, password, **kwargs)
        name = username if username is not None else kwargs.get(get_user_model().USERNAME_FIELD) or ""
        if not ratelimit.login_attempt(request, name):
            request.login_throttled = True  # type: ignore[attr-defined]  # read by the login form (forms.login_throttled)
            raise PermissionDenied("Too many failed logins.")  # stops authenticate() at once
        user = super().authenticate(request, username, password, **kwargs)
        if user is not None:
            ratelimit.login_succeeded(request, name)
        return user

    def get_user(self, user_id: Any) -> Any:
        user_model = get_user_model()
        columns, sql = _user_with_groups_sql()
        db = user_model._default_manager.db
        with connections[db].cursor() as cursor:
            cursor.execute(sql, [user_id])
            row = cursor.fetchone()
        if row is None:
            return None
        user = user_model.from_db(db, columns, row[:-1])
        remember_role(user, row[-1])
        return user if self.user_can_authenticate(user) else None
