"""The login backend: Django's, loading a user's role with the user."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import OuterRef

from factcheck.accounts.roles import remember_role


class UserWithRoleBackend(ModelBackend):
    """Every request loads its user (AuthenticationMiddleware) and nearly every view then
    checks the role; the user's group names come in the same query (a subquery), not in a
    second one."""

    def get_user(self, user_id: Any) -> Any:
        group_names = ArraySubquery(Group.objects.filter(user=OuterRef("pk")).values("name"))
        try:
            user = get_user_model()._default_manager.annotate(group_names=group_names).get(pk=user_id)
        except get_user_model().DoesNotExist:
            return None
        remember_role(user, user.group_names)
        return user if self.user_can_authenticate(user) else None
