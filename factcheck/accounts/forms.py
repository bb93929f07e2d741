from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError


def login_throttled(request: Any) -> bool:
    """Whether the authentication backend refused this request's login as throttled."""
    return bool(getattr(request, "login_throttled", False))


class ThrottleMessageMixin(AuthenticationForm):
    """Says why a throttled login failed; the throttling itself is the backend's
    (factcheck/accounts/backends.py), so it holds for every form."""

    request: Any

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except ValidationError:
            if login_throttled(self.request):
                minutes = max(1, settings.FACTCHECK_LOGIN_WINDOW_SECONDS // 60)
                raise ValidationError(
                    f"Too many failed logins. Try again in {minutes} minutes, or ask an admin to reset your password.",
                    code="throttled",
                ) from None
            raise


class ThrottledAuthenticationForm(ThrottleMessageMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottleMessageMixin, AdminAuthenticationForm):
    pass
