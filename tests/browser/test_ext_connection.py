"""The connection to `winnow serve`: what the popup, badge and reader view say when the server
is not running, the worker reconnecting after a restart, and the protocol messages both sides
sent, checked against shared/protocol.schema.json."""

from __future__ import annotations

import json
from typing import Any

from conftest import ROOT, Browser, WinnowServer, save_artifact, wait_for

START_COMMAND = "winnow serve"


def badge_text(browser: Browser) -> str:
    return str(browser.worker.evaluate("chrome.action.getBadgeText({})"))


def popup_screenshot(popup: Any, name: str) -> None:
    """The popup at its real size: just its body."""
    popup.set_viewport_size({"width": 340, "height": 600})
    save_artifact(popup.locator("body"), name)


def test_offline_message_then_reconnect_after_restart(browser: Browser,
                                                      winnow_server: WinnowServer) -> None:
    page = browser.open(browser.pages.url("/showcase"))
    popup = browser.popup(page)
    wait_for(lambda: popup.inner_text("#status-text").startswith("Connected"), what="connected")
    popup.wait_for_selector("#highlight:not([disabled])")
    popup_screenshot(popup, "popup")
    try:
        winnow_server.stop()
        popup.wait_for_selector("#offline", state="visible")
        notice = popup.inner_text("#offline")
        assert "not running" in notice and START_COMMAND in notice and "make run" in notice
        assert popup.inner_text("#status-text") == "Server not running"
        assert popup.is_disabled("#highlight")
        wait_for(lambda: badge_text(browser) == "off", what="the badge to say off")
        popup_screenshot(popup, "popup-offline")

        reader = browser.open_reader(page)
        assert reader.get_attribute("html", "data-state") == "offline"
        assert START_COMMAND in reader.inner_text("#offline")
        save_artifact(reader, "reader-offline")
    finally:
        winnow_server.start()

    wait_for(lambda: browser.status().get("state") == "online", what="reconnected")
    wait_for(lambda: badge_text(browser) == "", what="the badge cleared")
    popup.wait_for_selector("#offline", state="hidden")
    # "Connecting…" hides the notice too; the popup says "Connected" once it hears "online".
    wait_for(lambda: popup.inner_text("#status-text").startswith("Connected"), what="popup online")
    # The reader view that waited for the server shows the article once it answers.
    reader.wait_for_selector("html[data-state='article']", state="attached")
    assert reader.inner_text("#title") == "The quiet engineering of tide tables"
    for closing in (reader, popup, page):
        closing.close()


def validator(definition: str) -> Any:
    """A validator for one `$defs` entry of shared/protocol.schema.json, with the project's
    shared/ schemas as the registry (the protocol refers to extraction.schema.json)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = [json.loads(path.read_text()) for path in (ROOT / "shared").glob("*.schema.json")]
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas)
    protocol = next(schema["$id"] for schema in schemas if "protocol" in schema["$id"])
    return Draft202012Validator({"$ref": f"{protocol}#/$defs/{definition}"}, registry=registry)


def test_protocol_messages_follow_the_schema(browser: Browser) -> None:
    """What the extension sent and received so far (its diagnostics log keeps the last
    messages, long strings cut) validates against the shared protocol schema."""
    page = browser.open(browser.pages.url("/plain/schema"))
    browser.open_reader(page).close()
    options = browser.open(browser.ext_url("options/options.html"))
    log = options.evaluate("chrome.runtime.sendMessage({type: 'wire:log'})")
    assert log["ok"] and log["messages"]
    sent = [entry["message"] for entry in log["messages"] if entry["direction"] == "out"]
    received = [entry["message"] for entry in log["messages"] if entry["direction"] == "in"]
    assert {"hello", "page"} <= {message["type"] for message in sent}
    assert {"hello", "result"} <= {message["type"] for message in received}
    client, server = validator("client_message"), validator("server_message")
    for message in sent:
        client.validate(message)
    for message in received:
        server.validate(message)
    options.close()
    page.close()


def test_a_stopped_worker_starts_again_from_storage(browser: Browser) -> None:
    """MV3 stops idle workers. A new worker reconnects on the first event (here the popup)
    and finds each tab's result in storage.session instead of reading the page again."""
    page = browser.open(browser.pages.url("/showcase"))
    browser.open_reader(page).close()
    tab = browser.tab_id(page)
    browser.worker.evaluate("globalThis.oldWorker = true")
    cdp = browser.context.new_cdp_session(page)

    def worker_targets() -> list[str]:
        return [t["targetId"] for t in cdp.send("Target.getTargets")["targetInfos"]
                if t["type"] == "service_worker" and t["url"] == browser.worker.url]

    [target] = worker_targets()
    cdp.send("Target.closeTarget", {"targetId": target})
    wait_for(lambda: not worker_targets(), what="the worker stopped")
    cdp.detach()

    popup = browser.popup_page()
    popup.goto(browser.ext_url(f"popup/popup.html?tab={tab}"))   # an event wakes the worker
    assert browser.worker.evaluate("typeof globalThis.oldWorker") == "undefined"
    wait_for(lambda: popup.inner_text("#status-text").startswith("Connected"), what="reconnected")

    reader = browser.open_reader(page)
    assert reader.get_attribute("html", "data-state") == "article"
    log = popup.evaluate("chrome.runtime.sendMessage({type: 'wire:log'})")["messages"]
    sent = [entry["message"]["type"] for entry in log if entry["direction"] == "out"]
    assert "hello" in sent and "page" not in sent, "the page was read again"
    for closing in (reader, popup, page):
        closing.close()
