"""Extraction results validate against the JSON Schema in the project's shared/ folder, the
contract the CLI's JSON lines and the server's messages are built on."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from winnow import extract
from winnow.page import parse_page
from winnow.sitemodel import SiteModel

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "shared" /
                     "extraction.schema.json").read_text("utf-8"))
SENTENCES = "The council met on Tuesday, and it voted on the new budget. " * 6
ARTICLE = (f"<html lang='en' dir='ltr'><head><title>Budget</title></head><body data-wn='0'>"
           f"<nav data-wn='1'><a data-wn='2' href='/'>Home</a></nav><article data-wn='3'>"
           f"<h1 data-wn='4'>Budget</h1><p data-wn='5'>{SENTENCES}</p>"
           f"<p data-wn='6'>{SENTENCES}</p></article></body></html>")


def validate(data: dict[str, object]) -> None:
    jsonschema.validate(data, SCHEMA, format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize("html", [ARTICLE, "<html><body><a href='/'>Home</a></body></html>",
                                  b"\x00\x01binary", "<p>Test</p>"])
def test_results_match_the_schema(html: str | bytes) -> None:
    result = extract(html, "https://example.com/a")
    validate(json.loads(json.dumps(result.to_dict())))


def test_learned_result_matches_the_schema() -> None:
    model = SiteModel("example.com")
    for n in range(2):
        model.add_page(parse_page(ARTICLE.replace("budget", f"budget {n}")))
    result = extract(ARTICLE, None, model)
    assert result.method == "template+econ"
    validate(result.to_dict())


def test_schema_rejects_a_wrong_result() -> None:
    data = extract(ARTICLE).to_dict()
    data["kind"] = "blog"
    with pytest.raises(jsonschema.ValidationError):
        validate(data)
