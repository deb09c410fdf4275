"""Out-of-fold page types for the tune pages the page-type classifier learns from.

    .venv/bin/python bench/evaluate.py --engines winnow --sets wcxb --oof-types --per-page pp.jsonl
    .venv/bin/python bench/ooftypes.py          # out-of-fold accuracy and confusion on WCXB tune

The shipped classifier (`winnow/models/pagetype.json`) has seen every tune page it is scored on,
so the tune pages get their types right far more often than pages of unseen sites (check): tune
scores then hide what the types do on a new site. Here the classifier's training pages
(`train_models.pagetype_data`: WCXB's tune pages and the article sets' tune pages) are split
into FOLDS folds by a stable hash of their domain (a site is in one fold only), and each fold's
pages get the probabilities of a classifier trained, as `train_models.fit_pagetype` trains the
shipped one, on the other folds. `bench/evaluate.py --oof-types` extracts those pages with
these types (`page_type_runner`); check pages keep the shipped model.

The probabilities are cached in `$XDG_CACHE_HOME/winnow` (default `~/.cache/winnow`), in a
file keyed by the sources that make them (KEY_SOURCES) and the data directory: a change to the
features, the training or its parameters makes a new file. scikit-learn (the `train` extra) is
needed only when the cache misses.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from evaluate import REPO_DIR, Runner
from train_models import fit_pagetype, page_key, pagetype_data, report_pagetype
from winnow import evaluation as ev
from winnow.pagetype import PAGE_TYPES, WCXB_TYPES, page_type_of

FOLDS = 5
"""Folds of the tune domains: each fold's classifier learns from the other 4/5."""

KEY_SOURCES = ("bench/ooftypes.py", "bench/train_models.py", "server/winnow/pagefeatures.py",
               "server/winnow/pagetype.py", "server/winnow/page.py",
               "server/winnow/endtags.py", "server/winnow/streaming.py",
               "server/winnow/mibat_dom.py", "server/winnow/tree.py")
"""The files whose text keys the cache: the fold split, the training and its parameters, the
features and the parse they read."""

OofTypes = dict[str, dict[str, float]]
"""Page key (`train_models.page_key`) -> the out-of-fold probability of each type, and the
page's `log_chars` feature under "log_chars"."""


def fold_of(domain: str) -> int:
    """The fold of a domain, by a stable hash (its own salt, so that it is independent of
    the tune/check split's hash)."""
    key = ("fold:" + domain.strip().lower().removeprefix("www.")).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % FOLDS


def cache_path() -> Path:
    """The cache file of the current sources and data directory."""
    digest = hashlib.sha256(str(ev.data_dir().resolve()).encode())
    for name in KEY_SOURCES:
        digest.update((REPO_DIR / name).read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "winnow"
    return root / f"ooftypes-{digest.hexdigest()[:16]}.json"


def oof_types() -> OofTypes:
    """Every training page's out-of-fold probabilities, from the cache or computed (and
    cached)."""
    path = cache_path()
    if path.is_file():
        cached: OofTypes = json.loads(path.read_text("utf-8"))
        return cached
    found = compute_oof_types()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found), "utf-8")
    return found


def compute_oof_types() -> OofTypes:
    """Train one classifier per fold on the other folds' pages and keep its probabilities for
    the fold's own pages."""
    data = pagetype_data()
    features = list(data.rows[0])
    folds = [fold_of(domain) for domain in data.domains]
    out: OofTypes = {}
    for k in range(FOLDS):
        train = [i for i, fold in enumerate(folds) if fold != k]
        held = [i for i, fold in enumerate(folds) if fold == k]
        model = fit_pagetype([data.rows[i] for i in train], [data.labels[i] for i in train],
                             [data.weights[i] for i in train], features)
        classes = [str(c) for c in model.classes_]
        probabilities = model.predict_proba([[data.rows[i][f] for f in features] for i in held])
        for i, row in zip(held, probabilities, strict=True):
            out[data.keys[i]] = {**dict.fromkeys(PAGE_TYPES, 0.0),
                                 **{c: float(p) for c, p in zip(classes, row, strict=True)},
                                 "log_chars": data.rows[i]["log_chars"]}
        print(f"ooftypes: fold {k + 1}/{FOLDS}, {len(held)} pages", file=sys.stderr)
    return out


def page_type_runner(entry: dict[str, float]) -> Runner:
    """Winnow's runner (`evaluation.extract_text`) with the page's type taken from `entry`
    (one page's `oof_types`) instead of the shipped classifier."""
    probabilities = {label: entry[label] for label in PAGE_TYPES}
    page_type = page_type_of(probabilities, {"log_chars": entry["log_chars"]})
    return functools.partial(ev.extract_text, page_type=page_type)


def runners(cases: Sequence[ev.Case]) -> dict[str, Runner]:
    """Case id -> its out-of-fold runner, for the cases that have out-of-fold types."""
    types = oof_types()
    return {case.id: page_type_runner(types[page_key(case)]) for case in cases
            if page_key(case) in types}


def true_runners(cases: Sequence[ev.Case]) -> dict[str, Runner]:
    """Case id -> a runner reading the page with its true (WCXB-labelled) type, certain, for
    WCXB's tune pages only (`bench/evaluate.py --true-types`): the bound on what right types
    would give, to set against the out-of-fold runners. Check pages are never forced."""
    types = oof_types()
    out: dict[str, Runner] = {}
    for case in cases:
        if case.set != "wcxb" or case.split != "tune" or page_key(case) not in types:
            continue
        label = WCXB_TYPES.get(case.page_type, "article")
        probabilities = {name: float(name == label) for name in PAGE_TYPES}
        page_type = page_type_of(probabilities, {"log_chars": types[page_key(case)]["log_chars"]})
        out[case.id] = functools.partial(ev.extract_text, page_type=page_type)
    return out


def confusion() -> str:
    """WCXB tune's out-of-fold accuracy and confusion (`train_models.report_pagetype`)."""
    types = oof_types()

    def label_of(case: ev.Case) -> str:
        entry = types[page_key(case)]
        return max(PAGE_TYPES, key=lambda label: entry[label])

    return "\n".join(report_pagetype("tune", label_of, "Out-of-fold page types"))


if __name__ == "__main__":
    print(confusion())
