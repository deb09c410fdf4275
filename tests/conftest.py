"""Fixtures shared by the test modules (plain helpers live in helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

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
