from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from factcheck.accounts.roles import Role, has_role
from factcheck.publishing import selectors


def organisation_banner(request: HttpRequest) -> dict[str, object]:
    """The staff pages' "demo organisation" banner, read (from the cache) only when a page
    prints it: for someone with a role."""
    user = getattr(request, "user", None)
    if user is None or not has_role(user, Role.REVIEWER):
        return {}
    return {"organisation_banner": SimpleLazyObject(selectors.organisation_banner)}
