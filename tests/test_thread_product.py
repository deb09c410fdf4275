"""Threads in the product: signatures apart from the post text, code kept as code."""

from __future__ import annotations

from datetime import UTC, datetime

import winnow

NOW = datetime(2025, 11, 10, 12, 0, tzinfo=UTC)


def record(i: int, name: str, text: str) -> str:
    return (f'<div class="post"><a class="username" href="/members/{name}.{i}/">{name}</a>'
            f'<time datetime="2025-11-0{i}T10:00:00Z">Nov {i}, 2025</time>'
            f'<div class="content"><p>{text}</p><pre><code>$ make test-{i}</code></pre>'
            f'<div class="post-signature">{name} rides a 1972 Raleigh, restored by hand.</div>'
            f'</div></div>')


def test_a_signature_in_the_body_box_is_kept_apart_and_code_stays_code() -> None:
    texts = ["The build fails on a clean checkout since yesterday, log below.",
             "Same here; pinning the compiler to the previous release fixes it.",
             "Thanks, pinning worked for me too, the build passes again now."]
    names = ["ann", "bob", "ann"]
    html = ("<html><body><h1>Build fails</h1>" + "".join(
        record(i, n, t) for i, (n, t) in enumerate(zip(names, texts, strict=True), 1))
        + "</body></html>")
    result = winnow.extract(html, "https://forum.example/t/9", now=NOW)
    assert result.kind == "thread"
    for post, name, text in zip(result.posts, names, texts, strict=True):
        assert post.signature == f"{name} rides a 1972 Raleigh, restored by hand."
        assert "Raleigh" not in post.text and "Raleigh" not in post.html
        assert post.text.startswith(text)
        assert "<pre" in post.html and "<code" in post.html
