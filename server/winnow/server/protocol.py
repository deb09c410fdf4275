"""The WebSocket protocol of docs/protocol.md, sans I/O: text in, a checked request or a
`ProtocolError` out, and the reply envelopes.

The schema is `shared/protocol.schema.json` (shipped in the package as `schemas/`, a link to
the project's `shared/` folder, so there is one file). Validators are compiled once, one per
client message type, so a request is checked against its own type's definition and the error
names the field that is wrong rather than "not valid under any of the given schemas".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

PROTOCOL_VERSION = 1
SCHEMA_NAME = "shared/protocol.schema.json"
"""How the `hello` reply names the schema: its path in the repository."""
SCHEMA_FILES = ("protocol.schema.json", "extraction.schema.json")
PROTOCOL_ID = "https://winnow.local/schemas/protocol.schema.json"

CLIENT_TYPES = ("hello", "ping", "page", "stats", "site_settings", "forget_site", "export")
"""The message types a client may send, each with a `client.<type>` schema definition."""

ERROR_CODES = ("bad_json", "binary_frame", "too_large", "unsupported_version", "unknown_type",
               "invalid", "not_found", "bad_page", "internal")

MAX_ERROR_CHARS = 300
"""Error messages quote at most this much of a value (a wrong 20 MB field stays readable)."""
ID_PEEK_CHARS = 1024
"""An unparsed message (too large, not JSON) is searched this far for its `id` to echo."""
MAX_ID_CHARS = 64


class ProtocolError(Exception):
    """A request the server answers with an `error` message; `code` is one of ERROR_CODES."""

    def __init__(self, code: str, message: str, request_id: Any = None) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    """A checked client message: its type, echoed id and the whole message."""

    type: str
    id: str | int | None
    data: dict[str, Any]


def load_schemas() -> dict[str, dict[str, Any]]:
    """Return the packaged schemas by file name."""
    folder = resources.files("winnow.server").joinpath("schemas")
    return {name: json.loads(folder.joinpath(name).read_text("utf-8")) for name in SCHEMA_FILES}


@cache
def registry() -> Registry:  # type: ignore[type-arg]
    """The schemas as a `referencing` registry, so `extraction.schema.json` refs resolve."""
    resources_ = [(schema["$id"], Resource.from_contents(schema))
                  for schema in load_schemas().values()]
    return Registry().with_resources(resources_)


@cache
def validator(definition: str) -> Draft202012Validator:
    """A compiled validator for one `$defs` entry of the protocol schema (cached)."""
    return Draft202012Validator({"$ref": f"{PROTOCOL_ID}#/$defs/{definition}"},
                                registry=registry())


def parse_request(text: str) -> Request:
    """Decode and check one text frame; raise `ProtocolError` with the code the protocol
    names for what is wrong (checked in this order: JSON, object, version, type, fields)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ProtocolError("bad_json", "the message is nested too deeply to be read",
                            peek_id(text)) from None
    except ValueError as exc:
        raise ProtocolError("bad_json", f"the message is not valid JSON: {exc}",
                            peek_id(text)) from None
    if not isinstance(data, dict):
        raise ProtocolError("invalid", f"a message must be a JSON object, not "
                            f"{type(data).__name__}")
    request_id = _echo_id(data.get("id"))
    version = data.get("v")
    if "v" in data and version != PROTOCOL_VERSION:
        raise ProtocolError("unsupported_version", f"protocol version {_quote(version)} is not "
                            f"supported; this server speaks version {PROTOCOL_VERSION}",
                            request_id)
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        what = "has no type" if kind is None else f"has the unknown type {_quote(kind)}"
        raise ProtocolError("unknown_type", f"the message {what}; known types: "
                            f"{', '.join(CLIENT_TYPES)}", request_id)
    error = best_match(validator(f"client.{kind}").iter_errors(data))
    if error is not None:
        raise ProtocolError("invalid", f"{kind}: {describe(error)}", request_id)
    return Request(kind, request_id, data)


def describe(error: ValidationError) -> str:
    """Say which field is wrong and how, without quoting a huge value whole."""
    field = "/".join(str(part) for part in error.absolute_path)
    if error.validator == "type":
        text = f"must be of type {error.validator_value}"
    elif error.validator == "maxLength":
        text = f"is longer than {error.validator_value} characters"
    elif error.validator == "enum":
        text = f"must be one of {error.validator_value!r}"
    elif error.validator == "const":
        text = f"must be {error.validator_value!r}"
    else:
        text = error.message
    message = f"field '{field}' {text}" if field else text
    return message if len(message) <= MAX_ERROR_CHARS else message[:MAX_ERROR_CHARS] + "…"


def peek_id(text: str) -> str | int | None:
    """The top-level `id` of a message that cannot be parsed whole, when it comes before any
    nested value within the first `ID_PEEK_CHARS` characters (clients put the envelope
    first); None otherwise. Reads key/value pairs one by one, so it stops at the html."""
    decoder = json.JSONDecoder()
    head = text[:ID_PEEK_CHARS]
    pos = _skip(head, 0)
    if not head.startswith("{", pos):
        return None
    pos += 1
    try:
        while True:
            key, pos = decoder.raw_decode(head, _skip(head, pos))
            pos = _skip(head, pos)
            if not head.startswith(":", pos):
                return None
            value, pos = decoder.raw_decode(head, _skip(head, pos + 1))
            if key == "id":
                return _echo_id(value)
            pos = _skip(head, pos)
            if not head.startswith(",", pos):
                return None
            pos += 1
    except ValueError:
        return None


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _echo_id(value: Any) -> str | int | None:
    """The id to echo: a string of at most MAX_ID_CHARS or an integer, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and len(value) <= MAX_ID_CHARS):
        return value
    return None


def _quote(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:80] + "…"


def envelope(kind: str, request_id: str | int | None, /, **fields: Any) -> dict[str, Any]:
    """A server message: the envelope then the type's fields."""
    return {"v": PROTOCOL_VERSION, "id": request_id, "type": kind, **fields}


def error_message(code: str, message: str, request_id: str | int | None) -> dict[str, Any]:
    """The `error` reply."""
    return envelope("error", request_id, code=code, message=message)
