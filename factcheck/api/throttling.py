"""API rate limits (DRF throttles, counted in the shared cache): per user for tokens and
sessions, per client address for anonymous requests. The rates are read from the settings at
each request, so a deployment (or a test) changes them without re-importing DRF."""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from factcheck.accounts.ratelimit import client_address


class ApiUserThrottle(UserRateThrottle):
    scope = "api-user"

    def get_rate(self) -> str:
        return str(settings.FACTCHECK_API_RATE_USER)


class ApiAnonThrottle(AnonRateThrottle):
    scope = "api-anon"

    def get_rate(self) -> str:
        return str(settings.FACTCHECK_API_RATE_ANON)

    def get_ident(self, request: Request) -> str:
        # The same client address the login throttle uses (trusted proxy settings included).
        return client_address(request._request)
