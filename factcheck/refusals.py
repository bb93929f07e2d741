"""How the site says no: the 403 and 404 pages, the CSRF refusal, and their one log line.

A refusal is a page in the app's own layout (navigation, the signed-in user) that gives the
server's reason as it was raised ("A second person must approve or return a verdict; ...")
and a way back. An htmx request gets only the message, which the layout shows in place in
its #refusal region (HX-Retarget; layout.html's htmx config swaps 403 and 404 bodies).

Refusals are expected: the workflow raises PermissionDenied and Http404 as its answers. Django
logs a PermissionDenied with its traceback; ExpectedRefusalFilter keeps it to one line.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

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
