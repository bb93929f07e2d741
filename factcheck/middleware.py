"""Middleware that guards the whole site rather than one app.

ContentSecurityPolicyMiddleware sends the site's Content-Security-Policy.

RequestBodyLimitMiddleware refuses a request by its Content-Length before anything reads the
body. Django's own DATA_UPLOAD_MAX_MEMORY_SIZE counts only the non-file fields of a
multipart body, so without this an anonymous POST of a gigabyte to /login/ is spooled to
disk in full before the login form even looks at it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from factcheck.accounts.roles import Role, has_role

# Room for a multipart body's boundaries, headers and small fields around the file.
MULTIPART_OVERHEAD_BYTES = 1024 * 1024


@dataclass(frozen=True)
class BodyLimits:
    """The three body limits, in bytes: what this middleware enforces by Content-Length and
    what the front nginx enforces before reading a byte (scripts/serve.sh renders them into
    scripts/nginx.conf.template: `anonymous` on every path without a session cookie,
    `signed_in` on every other path, `upload` only on the upload pages, and there only once
    the app said the user may import)."""

    anonymous: int
    signed_in: int
    upload: int


def body_limits() -> BodyLimits:
    return BodyLimits(
        anonymous=int(settings.FACTCHECK_ANONYMOUS_MAX_BODY_BYTES),
        signed_in=int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) + MULTIPART_OVERHEAD_BYTES,
        upload=int(settings.FACTCHECK_UPLOAD_MAX_BYTES) + MULTIPART_OVERHEAD_BYTES,
    )


def may_upload(user: Any) -> bool:
    """Who may send an upload-sized body: those who may import (admins)."""
    return bool(user.is_authenticated and has_role(user, Role.ADMIN))


def request_body_limit(request: HttpRequest) -> int:
    """The most bytes of body this request may send: a little for anonymous requests (the
    login forms), DATA_UPLOAD_MAX_MEMORY_SIZE for signed-in ones, and the upload limit for
    multipart bodies from those who may import (admins)."""
    limits = body_limits()
    if not request.user.is_authenticated:
        return limits.anonymous
    if request.content_type == "multipart/form-data" and may_upload(request.user):
        return limits.upload
    return limits.signed_in


class RequestBodyLimitMiddleware:
    """413 before reading, for a declared body over the request's limit. Sits after the
    authentication middleware (which reads the session, never the body) and before anything
    that reads request.POST (the CSRF check does, in its process_view)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return HttpResponse("Bad Content-Length.\n", status=400, content_type="text/plain")
        if declared > 0:
            limit = request_body_limit(request)
            if declared > limit:
                # No Connection header (hop-by-hop, not a WSGI app's to set): gunicorn's sync
                # workers close every connection after its response, unread body and all.
                return HttpResponse(
                    f"Request body too large: {declared} bytes, the limit here is {limit}.\n",
                    status=413,
                    content_type="text/plain",
                )
        return self.get_response(request)


class ContentSecurityPolicyMiddleware:
    """The Content-Security-Policy header on every response that has none of its own
    (FACTCHECK_CONTENT_SECURITY_POLICY; empty turns it off)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = settings.FACTCHECK_CONTENT_SECURITY_POLICY
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response
