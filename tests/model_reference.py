"""A second, independent reading of the shipped JSON models for the tests: raw dicts walked
node by node, no `winnow.treemodel` code, so an evaluator bug cannot hide in both."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

MODELS = Path(__file__).resolve().parents[1] / "server" / "winnow" / "models"


def model_data(name: str) -> dict[str, Any]:
    """The raw JSON of a shipped model."""
    data: dict[str, Any] = json.loads((MODELS / f"{name}.json").read_text("utf-8"))
    return data


def reference_raw(data: dict[str, Any], features: dict[str, float]) -> list[float]:
    """Raw scores: base plus learning rate times each stage's leaf, output by output."""
    row = [features[name] for name in data["features"]]
    scores = list(data["base"])
    for stage in data["trees"]:
        for k, tree in enumerate(stage):
            node = 0
            while tree["feature"][node] != -1:
                go_left = row[tree["feature"][node]] <= tree["threshold"][node]
                node = tree["left"][node] if go_left else tree["right"][node]
            scores[k] += data["learning_rate"] * tree["value"][node]
    return scores


def reference_probabilities(data: dict[str, Any], features: dict[str, float]) -> dict[str, float]:
    """Softmax of the raw scores, by class label."""
    raw = reference_raw(data, features)
    exps = [math.exp(s - max(raw)) for s in raw]
    return {label: e / sum(exps) for label, e in zip(data["classes"], exps, strict=True)}
