from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from factcheck.accounts import ratelimit


class ThrottledAuthenticationForm(AuthenticationForm):
    """The stock login form, refusing without checking the password once too many attempts failed."""

    blocked = False

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        if self.request is not None and ratelimit.login_blocked(self.request, username):
            self.blocked = True
            minutes = max(1, settings.FACTCHECK_LOGIN_WINDOW_SECONDS // 60)
            raise ValidationError(
                f"Too many failed logins. Try again in {minutes} minutes, or ask an admin to reset your password.",
                code="throttled",
            )
        try:
            data = super().clean()
        except ValidationError:
            if self.request is not None:
                ratelimit.login_failed(self.request, username)
            raise
        if self.request is not None:
            ratelimit.login_succeeded(self.request, username)
        return data
