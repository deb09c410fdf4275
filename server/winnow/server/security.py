"""Who may talk to the server: the Host check, the Origin allow-list and the token.

Any web page can make the browser open a WebSocket or send a request to 127.0.0.1, so the
server answers only (1) requests whose `Host` names the server itself (a DNS-rebinding page
would send its own host name), and (2) among those, requests from the browser extension
(`Origin: chrome-extension://…` or `moz-extension://…`, optionally only pinned ids), from the
server's own pages (the dashboard: its own origin, or a same-origin or user-typed navigation
as the browser's `Sec-Fetch-Site` says), or from a client holding the token kept in the data
dir. Everything else gets 403 before any handler runs, WebSocket upgrades included. A write
(POST: forgetting a site from the dashboard) also needs the token, or an allowed Origin on a
JSON request: no form can send one, and a script of another origin only after a CORS
preflight this server never grants; without an Origin only the token will do.

The token lives in `<data dir>/token`, created once with mode 0600 (the data dir is 0700), and
is read from `Authorization: Bearer`, `X-Winnow-Token` or the `token` query parameter.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from ipaddress import ip_address
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler, Middleware

from winnow import datadir

TOKEN_FILENAME = "token"
TOKEN_MODE = datadir.FILE_MODE
TOKEN_BYTES = 32
"""secrets.token_urlsafe(32): 256 bits, 43 characters."""
EXTENSION_SCHEMES = ("chrome-extension", "moz-extension")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
SAME_SITE_FETCHES = ("same-origin", "none")
"""`Sec-Fetch-Site` values of the dashboard's own requests and of a URL the user typed; a
browser sets this header itself and no page can forge it."""
OPEN_PATHS = ("/healthz",)
"""Paths a local client without the token may GET when it sends no Origin (a browser page
always does): the liveness probe, which tells only that Winnow runs and its version."""
SAFE_METHODS = ("GET", "HEAD")
"""Methods that change nothing; every other one is a write."""
WRITE_MEDIA_TYPE = "application/json"
"""The media type a state-changing request (POST) must carry: HTML forms cannot send it, and a
script of another origin can only after a CORS preflight, which this server never grants."""
TOKEN_HEADER = "X-Winnow-Token"
TOKEN_QUERY = "token"


def load_token(data_dir: Path) -> str:
    """Return the token in `data_dir`, creating it (mode 0600) on first use. A token file
    that others can read is tightened back to 0600."""
    made = datadir.read_or_create(data_dir / TOKEN_FILENAME,
                                  lambda: (secrets.token_urlsafe(TOKEN_BYTES) + "\n").encode())
    return made.decode("ascii").strip()


@dataclass(frozen=True)
class Policy:
    """What the server accepts: host names (port checked against the listening socket),
    pinned extension ids (empty: any extension) and the token."""

    token: str
    extension_ids: frozenset[str] = frozenset()
    extra_hosts: frozenset[str] = frozenset()

    @classmethod
    def create(cls, token: str, extension_ids: Collection[str] = (),
               extra_hosts: Collection[str] = ()) -> Policy:
        return cls(token, frozenset(extension_ids), frozenset(h.lower() for h in extra_hosts))

    def host_allowed(self, host: str | None, port: int) -> bool:
        """True when the Host header names this server: a loopback name (or an extra host
        allowed with --allow-remote) with the port the server listens on."""
        if not host:
            return False
        name, _, given_port = host.lower().rpartition(":")
        return given_port == str(port) and (name in LOOPBACK_NAMES or name in self.extra_hosts)

    def origin_allowed(self, origin: str, port: int) -> bool:
        """True for the extension (pinned ids when any are set) and the server's own
        origin."""
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme in EXTENSION_SCHEMES:
            return bool(parts.hostname) and (not self.extension_ids
                                             or parts.hostname in self.extension_ids)
        return parts.scheme == "http" and self.host_allowed(parts.netloc, port)

    def token_given(self, request: web.Request) -> bool:
        """True when the request carries the token in a header or the query."""
        auth = request.headers.get(hdrs.AUTHORIZATION, "")
        scheme, _, value = auth.partition(" ")
        candidates = [value.strip()] if scheme.lower() == "bearer" else []
        candidates += [request.headers.get(TOKEN_HEADER, ""), request.query.get(TOKEN_QUERY, "")]
        return any(c and hmac.compare_digest(c.encode(), self.token.encode())
                   for c in candidates)

    def refusal(self, request: web.Request) -> str | None:
        """Why the request is refused, or None when it may proceed."""
        port = _local_port(request)
        if not self.host_allowed(request.headers.get(hdrs.HOST), port):
            return "the Host header does not name this server"
        if self.token_given(request):
            return None
        if request.method not in SAFE_METHODS and request.content_type != WRITE_MEDIA_TYPE:
            return f"a change must be sent as {WRITE_MEDIA_TYPE}"
        origin = request.headers.get(hdrs.ORIGIN)
        if origin is not None:
            return None if self.origin_allowed(origin, port) else \
                f"the origin {origin[:100]} may not use this server"
        reading = request.method in SAFE_METHODS and not _is_upgrade(request)
        if reading and request.path in OPEN_PATHS:
            return None
        if reading and request.headers.get("Sec-Fetch-Site") in SAME_SITE_FETCHES:
            return None
        return "neither the extension's origin nor the token was given"


def _is_upgrade(request: web.Request) -> bool:
    return request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"


def _local_port(request: web.Request) -> int:
    """The port this connection came in on (the real one when the server bound port 0)."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return int(sockname[1]) if sockname else -1


def is_loopback(host: str) -> bool:
    """True when binding `host` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def middleware(policy: Policy) -> Middleware:
    """The aiohttp middleware that refuses with 403 what `policy` refuses, and adds the
    headers that keep the server's pages from being framed or sniffed."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        reason = policy.refusal(request)
        if reason is not None:
            raise web.HTTPForbidden(text=f"403 Forbidden: {reason}\n")
        response = await handler(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        origin = request.headers.get(hdrs.ORIGIN)
        if origin and urlsplit(origin).scheme in EXTENSION_SCHEMES and not response.prepared:
            response.headers[hdrs.ACCESS_CONTROL_ALLOW_ORIGIN] = origin
            response.headers[hdrs.VARY] = hdrs.ORIGIN
        return response

    return guard
