"""How the site says no: the 403 and 404 pages, the CSRF refusal, and their one log line; and
the 503 "try again" page for a request whose database connection went away or whose query ran
past the web's statement timeout.

A refusal is a page in the app's own layout (navigation, the signed-in user) that gives the
server's reason as it was raised ("A second person must approve or return a verdict; ...")
and a way back. An htmx request gets only the message, which the layout shows in place in
its #refusal region (HX-Retarget; layout.html's htmx config swaps 403 and 404 bodies).

Refusals are expected: the workflow raises PermissionDenied and Http404 as its answers. Django
logs a PermissionDenied with its traceback; ExpectedRefusalFilter keeps it to one line.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.defaults import server_error as django_server_error
from psycopg.errors import QueryCanceled

DEFAULT_MESSAGES = {
    403: "You may not do this with the role you have.",
    404: "There is nothing at this address, or it is not yours to see.",
}
TITLES = {403: "Not allowed", 404: "Not found", 409: "Someone else acted first"}
CSRF_MESSAGE = "The form was too old or came from another page. Reload the page and send it again."


def _reason(exception: BaseException | None, status: int) -> str:
    """The message the code raised with; Django's own 404 (no URL matched) carries a dict."""
    if exception is not None and exception.args and isinstance(exception.args[0], str) and exception.args[0].strip():
        return exception.args[0]
    return DEFAULT_MESSAGES[status]


def _back_url(request: HttpRequest) -> str:
    """The page the refused request came from, when it is one of ours."""
    referer = request.META.get("HTTP_REFERER", "")
    if referer and url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return referer
    return ""


def refusal_response(request: HttpRequest, *, status: int, message: str) -> HttpResponse:
    """The refusal page, or for htmx the message alone, aimed at the layout's #refusal region."""
    context = {"status": status, "title": TITLES.get(status, "Refused"), "message": message, "back_url": _back_url(request)}
    if request.headers.get("HX-Request") == "true":
        response = render(request, "_refusal.html", context, status=status)
        response["HX-Retarget"] = "#refusal"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "refusal.html", context, status=status)


def permission_denied(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    """handler403."""
    return refusal_response(request, status=403, message=_reason(exception, 403))


def page_not_found(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    """handler404."""
    return refusal_response(request, status=404, message=_reason(exception, 404))


# The database went away under a request (a PostgreSQL restart, a failover, a dropped
# connection): the next request reconnects, so the answer is "try again", not an error page.
DATABASE_AWAY = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 5


def _statement_timed_out(exception: BaseException | None) -> bool:
    """The web's statement timeout (settings.WEB_STATEMENT_TIMEOUT_SECONDS) stopped the
    request's query: Django raises its OperationalError from psycopg's QueryCanceled."""
    return isinstance(exception, OperationalError) and isinstance(exception.__cause__, QueryCanceled)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a 503 "try again" while the database is away or a query ran past the web's
    statement timeout (called, as Django calls it, while the exception is being handled),
    Django's plain 500 otherwise. The 503 page is a standalone template: the layout reads the
    signed-in user, from the database that may be away."""
    exception = sys.exc_info()[1]
    if isinstance(exception, DATABASE_AWAY):
        context = {"retry_after": RETRY_AFTER_SECONDS, "timed_out": _statement_timed_out(exception), "timeout_seconds": settings.WEB_STATEMENT_TIMEOUT_SECONDS}
        body = render_to_string("unavailable.html", context)
        response = HttpResponse(body, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return django_server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: Django's reason is for developers; the person gets what to do."""
    return refusal_response(request, status=403, message=CSRF_MESSAGE)


EXPECTED_REFUSALS = (PermissionDenied, Http404)


class ExpectedRefusalFilter(logging.Filter):
    """On django.request: a refusal the code raised on purpose is logged as one line (the
    path and its reason), not with a traceback. Anything else passes through untouched."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc_info = record.exc_info
        if exc_info and isinstance(exc_info[1], EXPECTED_REFUSALS):
            reason = _reason(exc_info[1], 404 if isinstance(exc_info[1], Http404) else 403)
            # One line whatever the reason holds.
            record.msg = f"{record.getMessage()} ({' '.join(reason.split())})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
