"""Who may read the API: the web UI's rule. Reviewers, editors and admins see everything the
claim page shows; anyone else sees nothing (403 on lists, 404 on objects, 401 when anonymous)."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from factcheck.accounts.roles import Role, has_role


class HasReviewerRole(BasePermission):
    """For lists and the schema: 401 when anonymous, 403 without a role."""

    message = "This needs the reviewer role."

    def has_permission(self, request: Request, view: Any) -> bool:
        return has_role(request.user, Role.REVIEWER)


class IsLoggedIn(BasePermission):
    """For single objects: the view's access helper then answers 404 to a user without a role,
    as the web UI does, so an id does not tell whether it exists."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated)
