"""Checks of the extension's source that need no browser: the manifest asks for the least it
can, every message type is in its direction's list and handled, and `web-ext lint` (Firefox's
validator) finds no errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import EXTENSION, WEB_EXT
from winnow.markdown import MATHML_ATTRIBUTES, MATHML_TAGS

LINT_WARNINGS_ACCEPTED = {"BACKGROUND_SERVICE_WORKER_IGNORED"}
"""One manifest serves both browsers: Firefox ignores `background.service_worker` (it runs
`background.scripts`), and Chromium needs it."""


def manifest() -> dict:
    return json.loads((EXTENSION / "manifest.json").read_text())


def message_list(name: str) -> set[str]:
    """The types of one direction's list in shared/messages.js."""
    source = (EXTENSION / "shared" / "messages.js").read_text()
    block = re.search(rf"export const {name} = Object\.freeze\(\[(.*?)\]\);", source, re.S)
    assert block, name
    return set(re.findall(r'"([\w:]+)"', block.group(1)))


def handler_keys(path: str, table: str) -> set[str]:
    """The keys of a handler table `const <table> = { "type": ... }` in a source file."""
    source = (EXTENSION / path).read_text()
    block = re.search(rf"const {table} = \{{(.*?)\n\s*\}};", source, re.S)
    assert block, table
    return set(re.findall(r'^\s+"([\w:]+)":', block.group(1), re.M))


def test_manifest_asks_for_the_least() -> None:
    data = manifest()
    assert data["manifest_version"] == 3
    assert set(data["permissions"]) == {"activeTab", "scripting", "storage", "contextMenus"}
    assert data["host_permissions"] == ["http://127.0.0.1/*", "http://localhost/*"]
    assert set(data["optional_host_permissions"]) == {"http://*/*", "https://*/*"}
    assert "content_scripts" not in data, "content scripts are injected or registered on demand"
    assert data["background"]["service_worker"] == data["background"]["scripts"][0]
    assert data["browser_specific_settings"]["gecko"]["id"]
    csp = data["content_security_policy"]["extension_pages"]
    assert csp == "script-src 'self'; object-src 'self'"   # and no upgrade of ws:// in Firefox
    assert data["incognito"] == "not_allowed", "private windows never send pages"


def test_every_permission_is_explained_in_the_readme() -> None:
    readme = (EXTENSION / "README.md").read_text()
    data = manifest()
    for permission in [*data["permissions"], *data["host_permissions"],
                       *data["optional_host_permissions"]]:
        assert f"`{permission}`" in readme, permission


def test_message_types_are_listed_and_handled() -> None:
    assert handler_keys("background/background.js", "pageHandlers") == \
        message_list("PAGE_TO_BACKGROUND")
    assert handler_keys("background/background.js", "contentHandlers") == \
        message_list("CONTENT_TO_BACKGROUND")
    assert handler_keys("content/content.js", "handlers") == message_list("BACKGROUND_TO_CONTENT")
    for script in ("content.js", "readable.js"):
        content = (EXTENSION / "content" / script).read_text()
        sent = set(re.findall(r'sendMessage\(\{ type: "([\w:]+)"', content))
        assert sent and sent <= message_list("CONTENT_TO_BACKGROUND"), script


def test_web_ext_lint_is_clean() -> None:
    npx = shutil.which("npx")
    if npx is None:
        if os.environ.get("CI"):
            pytest.fail("npx (Node.js) is needed for web-ext lint")
        pytest.skip("npx is not installed")
    run = subprocess.run([npx, "--yes", WEB_EXT, "lint", "--source-dir", str(EXTENSION),
                          "--output", "json"], capture_output=True, text=True, timeout=240)
    report = json.loads(run.stdout[run.stdout.index("{"):])
    assert report["summary"]["errors"] == 0, report["errors"]
    assert {w["code"] for w in report["warnings"]} <= LINT_WARNINGS_ACCEPTED, report["warnings"]
    assert report["summary"]["notices"] == 0, report["notices"]


def js_string_list(path: str, name: str) -> set[str]:
    """The strings of a `const <name> = new Set([...])` or `= [...]` list in a source file."""
    source = (EXTENSION / path).read_text()
    block = re.search(rf"const {name} = (?:new Set\()?\[(.*?)\]", source, re.S)
    assert block, name
    return set(re.findall(r'"([\w-]+)"', block.group(1)))


def test_reader_keeps_the_formula_vocabulary_the_server_sends() -> None:
    """The reader's sanitizer rebuilds the MathML elements and attributes the server's
    sanitizer lets through, no more and no fewer (one allow-list, written in two languages)."""
    assert js_string_list("reader/render.js", "MATHML") == MATHML_TAGS
    assert js_string_list("reader/render.js", "MATHML_ATTRIBUTES") == MATHML_ATTRIBUTES
