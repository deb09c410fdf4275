"""The toolbar's "read" badge on forums its check used to miss: posts that carry their author
in a heading link (XenForo), and posts a forum builds with its own script after load."""

from __future__ import annotations

from typing import Any

from conftest import Browser, save_artifact, wait_for
from test_ext_reading import badge_of, readable_verdict

XENFORO = "harvest__forums.macrumors.com.threads.se-or-11.2231616..html"
"""A XenForo thread of forums/: each post's author is an `<h4>` linking to their profile."""


def test_badge_on_a_forum_whose_authors_are_heading_links(browser: Browser) -> None:
    page = browser.open(browser.pages.url(f"/forums/{XENFORO}"))
    try:
        verdict = wait_for(lambda: readable_verdict(browser, page), what="the page's check")
        assert verdict["kind"] in ("article", "thread")
        assert badge_of(browser, page) == "read"
    finally:
        page.close()


def test_badge_comes_when_the_page_builds_its_posts_after_load(browser: Browser) -> None:
    page = browser.open(browser.pages.url("/late-thread"))
    try:
        first: dict[str, Any] = wait_for(lambda: readable_verdict(browser, page),
                                         what="the page's first check")
        assert first["kind"] is None and badge_of(browser, page) == ""
        page.evaluate("renderTopic()")
        wait_for(lambda: readable_verdict(browser, page).get("kind") == "thread",
                 what="the check after the posts were built")
        assert badge_of(browser, page) == "read"
        save_artifact(page, "badge-late-thread")
    finally:
        page.close()
