"""Keyed digests: how a site model remembers text, URLs and titles without keeping them. Pure.

A site model must recognise text it saw on earlier pages (template chunks, a page already
learned, a paragraph's label in an ne-pattern) but must not keep the prose of the pages read.
It keeps digests instead, and keyed ones: an unkeyed digest of a paragraph can be confirmed
by anyone who guesses the paragraph (hash the article you suspect was read and look for it),
a keyed one only by whoever holds the key. The key is a per-install secret kept in the data
dir beside the database (`winnow.datadir`, mode 0600).

The digest is BLAKE2b in its keyed mode: RFC 7693 (section 2.5) defines keyed BLAKE2 as a
MAC, a pseudo-random function of the key, so it serves where HMAC would and costs one call.
What is digested is itself an unkeyed digest where the model already had one (a chunk's
(path, text) key, a tree label's text digest): the keyed form is then a function of the old
stored form, so a model saved before keys existed converts exactly (`Keyer.label`,
`sitemodel.SiteModel.from_json`).

Models built without a secret (tests, benchmarks, the library API) use `UNKEYED`, BLAKE2b
without a key: still no plain text in them, but not protected against guessing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

KEY_BYTES = 32
"""Bytes of the per-install secret (BLAKE2b takes keys up to 64 bytes)."""
DIGEST_BYTES = 8
"""Bytes of a keyed digest: 64 bits, so two different chunks of one site practically never
share one (the unkeyed chunk keys it replaces had the same size)."""
LABEL_DIGEST_CHARS = 12
"""Hex characters of a tree label's text digest (`tree.TEXT_DIGEST_BYTES` = 6 bytes)."""
LABEL_TEXT_SEP = "#"
"""What separates a tree label's tag (and classes) from its text digest (`tree.make_label`)."""
_KEY_ID_TEXT = "winnow site model key"
"""Digested to name the key a model was learned with (`Keyer.key_id`)."""
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class Keyer:
    """Keyed digests under one secret (`key`; empty: unkeyed)."""

    key: bytes = b""

    def __post_init__(self) -> None:
        if len(self.key) > hashlib.blake2b.MAX_KEY_SIZE:
            raise ValueError(f"a key has at most {hashlib.blake2b.MAX_KEY_SIZE} bytes")

    def digest(self, text: str) -> str:
        """The keyed digest of `text`, as 16 hex characters."""
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), key=self.key,
                               digest_size=DIGEST_BYTES).hexdigest()

    @property
    def key_id(self) -> str:
        """A digest that names the key without revealing it: a model records it, so one
        learned under another secret is recognised instead of silently matching nothing."""
        return self.digest(_KEY_ID_TEXT)

    def label(self, label: str) -> str:
        """A tree label with its text digest (`tag#<12 hex>`) replaced by a keyed digest of
        the same length; labels without one (bare tags, wildcards) are returned as they are.
        Equal labels stay equal and different ones different (up to 48-bit collisions)."""
        head, sep, tail = label.rpartition(LABEL_TEXT_SEP)
        if not sep or len(tail) != LABEL_DIGEST_CHARS or not set(tail) <= _HEX:
            return label
        return f"{head}{sep}{self.digest(tail)[:LABEL_DIGEST_CHARS]}"


UNKEYED = Keyer()
"""Digests without a secret, for models that are not kept in a data dir."""
