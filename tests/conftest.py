"""Fixtures shared by the test modules (plain helpers live in helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

DEFAULT_RECURSION_LIMIT = 1000
"""CPython's default recursion limit."""


@pytest.fixture
def default_recursion_limit() -> Iterator[None]:
    """Run a test with CPython's default recursion limit, whatever the runner set; apply with
    `pytestmark = pytest.mark.usefixtures("default_recursion_limit")`."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


BROWSER_TESTS = Path(__file__).with_name("browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last. Their Chromium, shared by the whole browser suite, is driven
    by Playwright's sync API, which keeps an event loop running on the main thread until the
    session ends; the asyncio tests (the server's) cannot start their own loop after it."""
    items.sort(key=lambda item: item.path.is_relative_to(BROWSER_TESTS))
