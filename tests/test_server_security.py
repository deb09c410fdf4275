"""Who may connect: extension origins, the server's own pages, the token; web pages, other
Host names (DNS rebinding) and anonymous clients get 403 before any upgrade."""

from __future__ import annotations

import stat
from pathlib import Path

import aiohttp
import pytest
import websockets
from server_helpers import EXTENSION_ORIGIN, Running, client, running_server
from winnow.server.security import Policy, is_loopback, load_token


async def refused(server: Running, origin: str | None = None, path: str = "/ws",
                  **headers: str) -> int:
    """The HTTP status of a WebSocket handshake that the server must refuse."""
    with pytest.raises(websockets.InvalidStatus) as caught:
        async with websockets.connect(f"ws://127.0.0.1:{server.port}{path}",
                                      origin=origin,  # type: ignore[arg-type]
                                      additional_headers=headers or None):
            pass
    return caught.value.response.status_code


@pytest.mark.asyncio
async def test_extension_origins_are_accepted(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        for origin in (EXTENSION_ORIGIN, "moz-extension://2f1c7a3e-5b7d-4f4e-9d43-5c1e8b2a9f10",
                       f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}"):
            async with client(server, origin=origin) as c:
                assert (await c.request("ping"))["type"] == "pong"


@pytest.mark.asyncio
async def test_web_pages_and_anonymous_clients_are_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        for origin in ("https://evil.example", "http://127.0.0.1:1", "null",
                       f"http://127.0.0.1.evil.example:{server.port}", "file://"):
            assert await refused(server, origin=origin) == 403
        assert await refused(server) == 403  # no Origin, no token
        assert await refused(server, origin="https://evil.example",
                             **{"Sec-Fetch-Site": "same-origin"}) == 403


@pytest.mark.asyncio
async def test_the_token_lets_a_local_client_in(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        token = server.token
        for headers in ({"Authorization": f"Bearer {token}"}, {"X-Winnow-Token": token}):
            async with client(server, origin=None, **headers) as c:
                assert (await c.request("ping"))["type"] == "pong"
        async with websockets.connect(f"{server.url}?token={token}") as ws:
            await ws.send('{"v": 1, "id": 1, "type": "ping"}')
            assert "pong" in str(await ws.recv())
        assert await refused(server, **{"X-Winnow-Token": token[:-1] + "?"}) == 403
        assert await refused(server, path=f"/ws?token={token}x") == 403


@pytest.mark.asyncio
async def test_wrong_host_is_refused_even_with_the_token(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        async with aiohttp.ClientSession() as http:
            for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1:1",
                         f"127.0.0.1.nip.io:{server.port}"):
                async with http.get(f"{server.http}/healthz",
                                    headers={"Host": host, "X-Winnow-Token": server.token}) as r:
                    assert r.status == 403 and "Host" in await r.text()
            with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
                await http.ws_connect(server.url, headers={
                    "Host": f"rebind.example:{server.port}", "Origin": EXTENSION_ORIGIN})
            assert caught.value.status == 403


@pytest.mark.asyncio
async def test_pinned_extension_ids(tmp_path: Path) -> None:
    pinned = "abcdefghijklmnopabcdefghijklmnop"
    async with running_server(tmp_path, extension_ids=(pinned,)) as server:
        async with client(server, origin=f"chrome-extension://{pinned}") as c:
            assert (await c.request("ping"))["type"] == "pong"
        assert await refused(server, origin="chrome-extension://someotherextensionidxxxxxxxx") \
            == 403


@pytest.mark.asyncio
async def test_http_api_origin_rules(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, aiohttp.ClientSession() as http:
        cases = [({}, 403),
                 ({"Origin": "https://evil.example"}, 403),
                 ({"Sec-Fetch-Site": "cross-site"}, 403),
                 ({"Sec-Fetch-Site": "same-origin"}, 200),  # the dashboard's own fetches
                 ({"Sec-Fetch-Site": "none"}, 200),  # a URL the user typed
                 ({"Origin": EXTENSION_ORIGIN}, 200),
                 ({"Authorization": f"Bearer {server.token}"}, 200)]
        for headers, status in cases:
            async with http.get(f"{server.http}/api/sites", headers=headers) as response:
                assert response.status == status, headers
        async with http.get(f"{server.http}/api/sites",
                            headers={"Origin": EXTENSION_ORIGIN}) as response:
            assert response.headers["Access-Control-Allow-Origin"] == EXTENSION_ORIGIN
            assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.asyncio
async def test_request_paths_never_reach_the_filesystem(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, aiohttp.ClientSession() as http:
        allowed = {"Sec-Fetch-Site": "same-origin"}
        for path in ("/static/../worker.py", "/static/..%2Fworker.py", "/static/%2e%2e/token",
                     "/static/worker.py", "/static/", "/token", "/winnow.sqlite3"):
            async with http.get(f"{server.http}{path}", headers=allowed) as response:
                assert response.status == 404, path
        async with http.get(f"{server.http}/static/dashboard.js", headers=allowed) as response:
            assert response.status == 200
            assert response.content_type == "text/javascript"


def test_token_file_is_private_and_stable(tmp_path: Path) -> None:
    token = load_token(tmp_path)
    path = tmp_path / "token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(token) >= 40 and load_token(tmp_path) == token
    path.chmod(0o644)
    assert load_token(tmp_path) == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_host_check() -> None:
    policy = Policy.create("t")
    assert policy.host_allowed("127.0.0.1:8765", 8765)
    assert policy.host_allowed("LOCALHOST:8765", 8765)
    assert policy.host_allowed("[::1]:8765", 8765)
    for host in ("127.0.0.1:8766", "127.0.0.1", "example.com:8765", "::1:8765", "", None):
        assert not policy.host_allowed(host, 8765), host


def test_loopback_binds() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "127.0.0.2"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.2", "::", "example.com"))


def test_serve_refuses_a_non_loopback_host_without_allow_remote(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from winnow.cli import main

    assert main(["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path)]) == 2
    assert "--allow-remote" in capsys.readouterr().err


@pytest.mark.asyncio
async def test_the_liveness_probe_is_open_to_local_clients_only(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server, aiohttp.ClientSession() as http:
        async with http.get(f"{server.http}/healthz") as r:  # curl: no Origin, no token
            assert r.status == 200 and (await r.json())["ok"] is True
        async with http.get(f"{server.http}/healthz",
                            headers={"Origin": "https://evil.example"}) as r:
            assert r.status == 403
        async with http.get(f"{server.http}/healthz", headers={"Host": "evil.example"}) as r:
            assert r.status == 403
        async with http.get(f"{server.http}/api/sites") as r:
            assert r.status == 403
