"""Gradient-boosted tree ensembles trained offline, evaluated in plain Python.

`bench/train_models.py` trains the models with scikit-learn and writes each as JSON into
`winnow/models/`; this module reads that JSON and evaluates it with no ML library, so the
package needs none at run time. The format:

    {"kind": "regressor" | "classifier", "features": [names...], "classes": [labels...],
     "base": [raw score per output], "learning_rate": float,
     "trees": [[tree of output 0, tree of output 1, ...] per boosting stage]}

A tree is four parallel lists over its nodes, `feature` (-1 at a leaf), `threshold`, `left`,
`right`, and `value` (a leaf's output); a sample goes left when its feature is <= the
threshold, as in scikit-learn. A regressor's output is the sum of `base` and the scaled
leaves; a classifier's raw scores go through softmax.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any

MODELS_PACKAGE = "winnow.models"
"""Where the shipped model files live (package data)."""


class ModelError(ValueError):
    """A model file that does not have the expected shape."""


@dataclass(frozen=True)
class Tree:
    """One regression tree as parallel node lists."""

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def predict(self, row: list[float]) -> float:
        """The leaf value `row` falls into."""
        node = 0
        feature, threshold = self.feature, self.threshold
        while feature[node] >= 0:
            node = self.left[node] if row[feature[node]] <= threshold[node] else self.right[node]
        return self.value[node]


_FlatTree = tuple[int, tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...],
                  tuple[float, ...]]
"""A tree as its output's number and its node lists: feature, threshold, left, right, value."""


@dataclass(frozen=True)
class Ensemble:
    """A boosted ensemble: raw score k = base[k] + learning_rate * sum of stage trees k."""

    kind: str
    features: tuple[str, ...]
    classes: tuple[str, ...]
    base: tuple[float, ...]
    learning_rate: float
    trees: tuple[tuple[Tree, ...], ...]

    def row(self, features: dict[str, float]) -> list[float]:
        """The feature vector in the model's order; a missing feature is an error (the model
        and the feature code must agree)."""
        try:
            return [float(features[name]) for name in self.features]
        except KeyError as missing:
            raise ModelError(f"feature {missing} missing for the model") from None

    @cached_property
    def _flat(self) -> tuple[_FlatTree, ...]:
        """Every tree in evaluation order (stage by stage) with its output and node lists."""
        return tuple((k, tree.feature, tree.threshold, tree.left, tree.right, tree.value)
                     for stage in self.trees for k, tree in enumerate(stage))

    def raw(self, features: dict[str, float]) -> list[float]:
        """The raw score of each output."""
        row = self.row(features)
        scores = list(self.base)
        rate = self.learning_rate
        for k, feature, threshold, left, right, value in self._flat:
            # Tree.predict inlined: a model holds hundreds of trees, evaluated per page
            node = 0
            f = feature[0]
            while f >= 0:
                node = left[node] if row[f] <= threshold[node] else right[node]
                f = feature[node]
            scores[k] += rate * value[node]
        return scores

    def predict(self, features: dict[str, float]) -> float:
        """A regressor's prediction."""
        return self.raw(features)[0]

    def probabilities(self, features: dict[str, float]) -> dict[str, float]:
        """A classifier's class probabilities (softmax of the raw scores)."""
        scores = self.raw(features)
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {label: e / total for label, e in zip(self.classes, exps, strict=True)}


def parse_model(data: dict[str, Any]) -> Ensemble:
    """Build an ensemble from its JSON data; raises ModelError when the shape is wrong."""
    try:
        features = tuple(str(f) for f in data["features"])
        base = tuple(float(b) for b in data["base"])
        trees = tuple(tuple(_tree(t, len(features)) for t in stage) for stage in data["trees"])
        ensemble = Ensemble(kind=str(data["kind"]), features=features,
                            classes=tuple(str(c) for c in data.get("classes", [])),
                            base=base, learning_rate=float(data["learning_rate"]), trees=trees)
    except (KeyError, TypeError, ValueError) as error:
        raise ModelError(f"bad model data: {error}") from None
    outputs = len(ensemble.classes) if ensemble.kind == "classifier" else 1
    if len(base) != outputs or any(len(stage) != outputs for stage in trees):
        raise ModelError("model outputs do not match its classes")
    return ensemble


def _tree(data: dict[str, list[Any]], width: int) -> Tree:
    tree = Tree(feature=tuple(int(v) for v in data["feature"]),
                threshold=tuple(float(v) for v in data["threshold"]),
                left=tuple(int(v) for v in data["left"]),
                right=tuple(int(v) for v in data["right"]),
                value=tuple(float(v) for v in data["value"]))
    size = len(tree.feature)
    if not size or any(len(part) != size for part in (tree.threshold, tree.left, tree.right,
                                                       tree.value)):
        raise ValueError("tree lists differ in length")
    for node, feature in enumerate(tree.feature):
        if feature >= width:
            raise ValueError(f"tree node {node} reads feature {feature} of {width}")
        if feature >= 0 and not (node < tree.left[node] < size and node < tree.right[node] < size):
            raise ValueError(f"tree node {node} points outside the tree")
    return tree


@functools.cache
def load_model(name: str) -> Ensemble:
    """The shipped model `name` (`winnow/models/<name>.json`), read once."""
    text = resources.files(MODELS_PACKAGE).joinpath(f"{name}.json").read_text("utf-8")
    return parse_model(json.loads(text))
