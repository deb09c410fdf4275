"""Site keys: the name under which Winnow keeps a site's pages and model.

A site is its host, lowercase, without a leading `www.` or a port (`site_key`); a name given
on the command line goes through the same normalization (`normalize_site`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_SITE_CHARS = 253
"""The longest DNS name; site keys are host names or short names given on the command line."""
WWW_PREFIX = "www."


def site_key(url: str) -> str:
    """Return the site of `url`: its lowercase host without a leading `www.` and without port.

    Raise ValueError for URLs without a host (relative URLs, `file:`, `about:blank`), since
    the caller then has to name the site itself.
    """
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError as exc:
        raise ValueError(f"cannot read a host from URL {url!r}: {exc}") from exc
    if not host:
        raise ValueError(f"URL {url!r} has no host; give the site explicitly")
    return normalize_site(host)


def normalize_site(site: str) -> str:
    """Return `site` as a site key: trimmed, lowercase, trailing dot and leading `www.` off
    (only when a domain remains: `www.com` stays). Raise ValueError for an empty or
    over-long name."""
    if not isinstance(site, str):
        raise TypeError(f"site must be a str, got {type(site).__name__}")
    key = site.strip().lower().rstrip(".")
    if key.startswith(WWW_PREFIX) and "." in key[len(WWW_PREFIX):]:
        key = key[len(WWW_PREFIX):]
    if not key:
        raise ValueError("site must not be empty")
    if len(key) > MAX_SITE_CHARS:
        raise ValueError(f"site is {len(key)} characters, over the limit of {MAX_SITE_CHARS}")
    return key
