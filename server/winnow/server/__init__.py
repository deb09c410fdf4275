"""`winnow serve`: the companion server the extension talks to (aiohttp).

`winnow.server.app.create_app(config)` builds the application and `serve(config)` runs it;
`docs/protocol.md` is the WebSocket protocol and `docs/server.md` the rest. This package
imports nothing itself, so the worker processes (`winnow.server.worker`) stay free of aiohttp.
"""
