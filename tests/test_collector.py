"""`winnow.extract` pauses Python's cyclic garbage collector for the span of one call and
leaves it as it found it: on, off, and after a `PageError`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
import winnow
from winnow import PageError, extractor

PAGE = "<html><head><title>Budget</title></head><body><article><p>The council met on " \
       "Tuesday, and it voted on the new budget. Residents were pleased.</p></article>" \
       "</body></html>"


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collector_is_off_during_an_extraction(collector_on: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    inner = extractor.extract_page

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return inner(*args, **kwargs)

    monkeypatch.setattr(extractor, "extract_page", spy)
    winnow.extract(PAGE)
    assert seen == [False]
    assert gc.isenabled()


def test_collector_is_back_on_after_an_error(collector_on: None) -> None:
    with pytest.raises(PageError):
        winnow.extract(b"")
    assert gc.isenabled()


def test_collector_a_caller_turned_off_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        winnow.extract(PAGE)
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
