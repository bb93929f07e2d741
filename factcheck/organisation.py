"""The organisation that publishes the desk's verdicts, and whether it is set up to publish.

Its URL is every published ClaimReview's author URL: search engines and fact-check
aggregators attribute the verdicts by it. So nothing is published (approved, exported as
ClaimReview) while FACTCHECK_ORG_URL is unset or names this machine (localhost, a loopback
address): a verdict approved then would carry an author nobody else can reach. The app
starts and works without it, so a local setup needs nothing; approving asks for it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

LOCAL_HOSTS = frozenset({"localhost", "localhost.localdomain", "testserver"})


@dataclass(frozen=True)
class Organisation:
    name: str
    url: str
    logo: str = ""


class PublishingNotConfigured(Exception):
    """The organisation's URL is unset or local: nothing may be published or exported."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def organisation_from_settings() -> Organisation:
    return Organisation(name=settings.FACTCHECK_ORG_NAME, url=settings.FACTCHECK_ORG_URL, logo=settings.FACTCHECK_ORG_LOGO)


def is_local_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host or host in LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or address.is_link_local


def publishing_refusal() -> str:
    """Why nothing can be published now, in words for the person who must fix it; "" when
    publishing is set up."""
    url = settings.FACTCHECK_ORG_URL
    how = (
        "Set FACTCHECK_ORG_URL to the organisation's public site (https://...) in the server's environment and restart it: "
        "it is the author URL of every published fact check."
    )
    if not url:
        return f"Publishing is not set up: the organisation's URL is not set. {how}"
    if is_local_url(url):
        return f"Publishing is not set up: the organisation's URL ({url}) points at this machine, which readers cannot reach. {how}"
    return ""


def require_publishing() -> Organisation:
    """The organisation, or PublishingNotConfigured with the reason."""
    if refusal := publishing_refusal():
        raise PublishingNotConfigured(refusal)
    return organisation_from_settings()
