"""Winnow: reader view, thread posts and template-noise maps for web pages.

The public Python API is `extract(html, url=None) -> Extraction`.
"""

from winnow.extractor import extract
from winnow.page import PageError
from winnow.result import Article, Extraction

__all__ = ["Article", "Extraction", "PageError", "extract"]
__version__ = "0.1.0"
