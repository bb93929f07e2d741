"""When two addresses, or two texts, are the same article. Pure: no database, no network.

An outlet's feed links `…/story?utm_source=rss`, its AMP page is `…/story/amp`, a partner
republishes the story under its own address with a canonical link back, and the same text
arrives with other whitespace and quotes. Each of these gives the same key here:
- `url_key`: scheme and host lower-cased (`www.` and default ports dropped), the fragment,
  tracking parameters and AMP markers removed, the query sorted, no trailing slash;
- `text_fingerprint`: the words of the text, lower-cased, without punctuation.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

TRACKING_PARAMETERS = frozenset({
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid", "_ga", "_gl",
    "ocid", "cmpid", "cmp", "ito", "ns_mchannel", "ns_source", "ns_campaign", "ns_linkname", "ns_fee", "ref", "ref_src",
    "smid", "smtyp", "share", "sr_share", "at_medium", "at_campaign", "at_custom1", "at_custom2", "at_custom3",
    "at_custom4", "rss", "outputtype", "amp",
})
TRACKING_PREFIXES = ("utm_", "at_", "pk_", "mtm_", "hsa_", "__hs", "vero_", "oly_")
DEFAULT_PORTS = {"http": 80, "https": 443}
# AMP versions of a page: a last path segment `amp`, a `.amp` or `.amp.html` ending, an
# `/amp/` segment at the start (Google's cache layout and many CMSes), an `amp.` host.
_AMP_SUFFIX = re.compile(r"(?:/amp|\.amp(?:\.html?)?)$", re.IGNORECASE)
_AMP_PREFIX = re.compile(r"^/amp(?=/)", re.IGNORECASE)
_WORDS = re.compile(r"\w+")


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMETERS or lowered.startswith(TRACKING_PREFIXES)


def normalise_url(url: str) -> str:
    """The address without what varies between copies of one page; '' for what is not an
    absolute http(s) address."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in DEFAULT_PORTS or not host:
        return ""
    host = host.removeprefix("www.").removeprefix("amp.")
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = re.sub(r"/{2,}", "/", parts.path or "/")
    path = _AMP_PREFIX.sub("", _AMP_SUFFIX.sub("", path)) or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    query = sorted((name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(name))
    # http and https copies of a page are one page: the key is scheme-free.
    return urlunsplit(("https", netloc, path, urlencode(query), ""))


def url_key(url: str) -> str:
    """A fixed-length key of the normalised address ('' when there is none)."""
    normalised = normalise_url(url)
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest() if normalised else ""


def text_fingerprint(text: str) -> str:
    """A key of the text's words: the same story with other spacing, quotes, dashes or case
    gives the same key. '' for a text without words."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    words = _WORDS.findall(folded)
    return hashlib.sha256(" ".join(words).encode("utf-8")).hexdigest() if words else ""
