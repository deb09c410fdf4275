"""The reader view as a standalone HTML document (`GET /api/pages/{id}/reader`). Pure.

The body HTML was sanitized when it was rendered (winnow.markdown, nh3 allow-list); it is
passed through nh3 once more here, because this page is served from the server's own
origin, and every other value is escaped. The server also sends a Content-Security-Policy
without any script source, so even a sanitizer miss could not run script.
"""

from __future__ import annotations

from html import escape

import nh3

from winnow.result import Extraction, Post

CSP = ("default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""No scripts, no frames, no forms; images from anywhere (the article's own), inline CSS."""

STYLE = """
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fbfaf7; --muted: #6b6b6b;
  --rule: #e2ded6; --link: #1a5fb4; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e6e3; --bg: #1b1b1d; --muted: #a0a0a0;
  --rule: #3a3a3c; --link: #8ab4f8; } }
html { background: var(--bg); color: var(--fg); }
body { margin: 0 auto; max-width: 38rem; padding: 3rem 1.25rem 5rem;
  font: 1.125rem/1.65 Charter, "Bitstream Charter", "Iowan Old Style", Georgia, serif;
  text-rendering: optimizeLegibility; hyphens: auto; overflow-wrap: break-word; }
header { border-bottom: 1px solid var(--rule); margin-bottom: 2rem; padding-bottom: 1rem; }
h1 { font-size: 2.1rem; line-height: 1.2; margin: 0 0 .6rem; letter-spacing: -.01em; }
h2, h3, h4 { line-height: 1.3; margin: 2rem 0 .6rem; }
.meta { color: var(--muted); font: .9rem/1.4 system-ui, sans-serif; }
.meta span + span::before { content: " · "; }
a { color: var(--link); }
img, video { max-width: 100%; height: auto; }
figure { margin: 1.5rem 0; } figcaption { color: var(--muted); font-size: .9rem; }
blockquote { border-left: 3px solid var(--rule); margin: 1.2rem 0; padding: 0 1rem;
  color: var(--muted); }
pre, code { font: .9rem/1.5 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: rgba(127,127,127,.1); padding: .8rem 1rem; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
td, th { border: 1px solid var(--rule); padding: .3rem .5rem; text-align: left; }
.post { border-top: 1px solid var(--rule); padding: 1rem 0; }
.post .meta { margin-bottom: .4rem; }
.source { color: var(--muted); font: .85rem system-ui, sans-serif; margin-top: 3rem; }
"""


def reader_document(result: Extraction) -> str:
    """Return the reader view of an extraction as a complete HTML document."""
    article = result.article
    title = (article.title if article else None) or result.title or "Untitled page"
    lang = article.lang if article and article.lang else "en"
    direction = article.dir if article and article.dir else "auto"
    meta = []
    if article is not None:
        meta = [v for v in (article.byline, article.published, article.site_name) if v]
    parts = [f"<header><h1>{escape(title)}</h1>",
             f"<p class=\"meta\">{''.join(f'<span>{escape(m)}</span>' for m in meta)}</p>",
             "</header>"]
    if article is not None:
        parts.append(f"<article>{_clean(article.html)}</article>")
    posts = result.posts or (article.comments if article is not None else [])
    parts.extend(_post(post) for post in posts)
    if article is None and not posts:
        parts.append("<p>Winnow found no article or posts on this page.</p>")
    if result.url:
        parts.append(f"<p class=\"source\">Source: <a href=\"{escape(_safe_url(result.url))}\">"
                     f"{escape(result.url)}</a></p>")
    return (f"<!doctype html><html lang=\"{escape(lang)}\" dir=\"{escape(direction)}\"><head>"
            f"<meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, "
            f"initial-scale=1\"><meta name=\"referrer\" content=\"no-referrer\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            f"{''.join(parts)}</body></html>")


def _post(post: Post) -> str:
    meta = "".join(f"<span>{escape(v)}</span>" for v in (post.author, post.published or post.date)
                   if v)
    body = _clean(post.html) if post.html else f"<p>{escape(post.text)}</p>"
    indent = f" style=\"margin-left:{min(post.depth, 8) * 1.5}rem\"" if post.depth else ""
    return f"<section class=\"post\"{indent}><p class=\"meta\">{meta}</p>{body}</section>"


def _clean(html: str) -> str:
    """nh3's defaults: no script, no event handlers, no javascript: URLs."""
    return nh3.clean(html, link_rel="noopener noreferrer nofollow")


def _safe_url(url: str) -> str:
    return url if url.lower().startswith(("http://", "https://")) else "#"
