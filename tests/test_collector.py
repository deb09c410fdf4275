"""`winnow.extract`, and a visit's two steps of learning (`learning.read_page`,
`SiteModel.add`), pause Python's cyclic garbage collector for the span of one call and leave
it as they found it: on, off, and after a `PageError`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
import winnow
from winnow import PageError, extractor, sitemodel
from winnow.learning import read_page
from winnow.sitemodel import SiteModel

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


def test_collector_is_off_while_a_page_is_read_and_learned(
        collector_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    reading: list[bool] = []
    learning: list[bool] = []
    observe, keys = SiteModel.observe, sitemodel._page_keys

    def observing(self: SiteModel, page: Any) -> Any:
        reading.append(gc.isenabled())
        return observe(self, page)

    def keying(*args: Any) -> Any:
        learning.append(gc.isenabled())
        return keys(*args)

    monkeypatch.setattr(SiteModel, "observe", observing)
    monkeypatch.setattr(sitemodel, "_page_keys", keying)
    model = SiteModel("example.com")
    _, observed = read_page(model, PAGE, "https://example.com/budget")
    assert reading == [False]
    learning.clear()
    model.add(observed)
    assert learning and not any(learning)
    assert gc.isenabled()
