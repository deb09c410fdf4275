"""`paused`: a function run with Python's cyclic garbage collector off, as it was after.

An extraction allocates hundreds of thousands of containers (tree arrays, records, features)
and frees nearly all of them by reference counting when it returns: on the 300 WCXB tune pages
nearest the median time, the collector's passes during extraction found about one object a
page, yet walked each page's live arrays two or three times (and moved them to the older
generations, whose passes walk them again): 3% to 6% of the time. Learning from a page
(`SiteModel.add`) keeps its trees, so there the passes also walk what the site's models hold.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")


def paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """`fn` with the collector off for the span of its call. It is back on only once `fn`'s
    frame, and the page with it, is gone: its first pass then finds the result and the few
    cycles the call left (a context manager inside `fn` turned it on with the page still
    alive and saved a quarter of the collector's time, not nine tenths). A caller that turned
    the collector off keeps it off; nested calls leave it to the outermost. The switch is the
    process's: calls in several threads end with it on when the first found it on, and a
    thread that turns it off while another's call runs gets it back on (`winnow serve`
    extracts in worker processes, one call at a time each)."""
    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()
    return run
