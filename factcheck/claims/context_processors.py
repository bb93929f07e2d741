from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from factcheck.accounts.roles import Role, has_role
from factcheck.claims.queue import selectors


def work_counts(request: HttpRequest) -> dict[str, object]:
    """The navigation's "My claims · N left" and "Awaiting my approval" counts, read only when
    a page prints them (a partial that has no navigation costs no query)."""
    user = getattr(request, "user", None)
    if user is None or not has_role(user, Role.REVIEWER):
        return {}
    return {"work_counts": SimpleLazyObject(lambda: selectors.work_counts_cached(user=user))}
