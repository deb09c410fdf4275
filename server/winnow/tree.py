"""A compact ordered labelled tree for tree edit distances (RTDM) and ne-patterns.

Nodes are numbered in document order (preorder), so the subtree of node `v` is the contiguous
range `v .. v + sizes[v] - 1`; every per-node property is one tuple indexed by that number.
Building, hashing, text reading and JSON conversion are loops over these arrays: nothing
recurses, so a 10,000-deep page costs no Python stack.

Labels (the paper's vertex labels, RTDM section 2) are decided here, once:

- An element's label is its tag name. The paper labels DOM vertices by tag; the class
  attribute is left out by default (`LabelOptions.with_class`) because same-template pages
  vary classes on content nodes ("story-123", "first") while templates of different years
  already differ in structure.
- Text is folded into its element's label: an element that directly holds text (its own
  text plus the tails of its children) is labelled `tag#digest`, a 48-bit BLAKE2 digest of
  that text, whitespace-normalised. Two paragraphs with different words therefore carry
  different labels, so RTDM maps them as a *replacement* and composition turns them into a
  wildcard at the paragraph itself; a run of such paragraphs then merges into one PLUS or
  KLEENE wildcard (section 4.2), which is the data region we want. With separate `#text`
  leaves the paragraph elements would stay fixed and only their text leaves would vary,
  so a news body could never become one variable-size wildcard. Template text (menu items,
  "Related stories") keeps the same label on every page and stays fixed.

The digest is stable across processes (unlike `hash()` of a str), so labels may be stored in
JSON patterns. Subtree hashes, used for RTDM's identical-subtree short-cut, use Python's
`hash` and are computed on a tree's first comparison (`Tree.hashes`): they are never stored.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lxml.html import HtmlElement

from winnow.page import WN_ID, parse_wn_id

TEXT_DIGEST_BYTES = 6
"""Bytes of BLAKE2b digest of an element's own text in its label: 2**48 values make an
accidental equal label between two different paragraphs of a site practically impossible."""

LABEL_TEXT_SEP = "#"
LABEL_CLASS_SEP = "."

BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
})
"""Tags that start a new line when a subtree's text is read back (passages keep paragraphs)."""


class TreeError(ValueError):
    """The arrays or JSON do not describe a tree in preorder; the message says why."""


@dataclass(frozen=True)
class LabelOptions:
    """How element labels are made; patterns record these so pages are labelled alike."""

    with_text: bool = True
    """Fold a digest of the element's own text into its label (see the module docstring)."""
    with_class: bool = False
    """Append the sorted class names to the tag (the paper uses the bare tag)."""

    def to_json(self) -> dict[str, bool]:
        return {"with_text": self.with_text, "with_class": self.with_class}

    @classmethod
    def from_json(cls, data: Any) -> LabelOptions:
        if not isinstance(data, dict):
            raise TreeError("label options must be a JSON object")
        values = {k: data.get(k, getattr(cls(), k)) for k in ("with_text", "with_class")}
        if not all(isinstance(v, bool) for v in values.values()):
            raise TreeError("label options must be booleans")
        return cls(**values)


@dataclass(frozen=True, eq=False)
class Tree:
    """An ordered labelled tree in preorder arrays; build with `build_tree` or `from_arrays`.

    `texts[v]`/`tails[v]` are the element's leading text and the text after it (lxml's .text
    and .tail), whitespace-normalised; they serve extraction, not comparison (labels do).
    `elements` maps nodes back to the lxml elements when the tree was built from a page.
    """

    tags: tuple[str, ...]
    labels: tuple[str, ...]
    parents: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    depths: tuple[int, ...]
    sizes: tuple[int, ...]
    texts: tuple[str, ...]
    tails: tuple[str, ...]
    wn_ids: tuple[int | None, ...]
    elements: tuple[HtmlElement, ...] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.labels)

    def is_leaf(self, v: int) -> bool:
        return not self.children[v]

    def subtree(self, v: int) -> range:
        """The preorder numbers of `v` and all its descendants."""
        return range(v, v + self.sizes[v])

    def height(self) -> int:
        return max(self.depths) + 1 if self.depths else 0

    @cached_property
    def hashes(self) -> tuple[int, ...]:
        """Subtree hashes over labels (`_subtree_hashes`): equal hashes and sizes mean
        identical subtrees. Computed on first use: only a comparison (MiBAT's matching,
        RTDM) reads them, and most trees a page builds are never compared."""
        return _subtree_hashes(self.labels, self.children)

    @cached_property
    def tag_hashes(self) -> tuple[int, ...]:
        """Subtree hashes over tags only (no text digests, no classes): the structure that
        template similarity compares. Computed on first use."""
        return _subtree_hashes(self.tags, self.children)

    @cached_property
    def tag_paths(self) -> tuple[int, ...]:
        """Per node, a hash of the tags on its path from the root, itself included (what a
        restricted top-down mapping keeps equal, see `rtdm.structure_bound`). Computed on
        first use."""
        paths: list[int] = []
        for tag, parent in zip(self.tags, self.parents, strict=True):
            paths.append(hash((paths[parent] if parent >= 0 else 0, tag)))
        return tuple(paths)

    @cached_property
    def tag_path_counts(self) -> tuple[Counter[tuple[int, int]], Counter[int]]:
        """Nodes per (parent's tag path, own tag path), and per parent's tag path (the root's
        parent path is 0). Computed on first use."""
        paths = self.tag_paths
        parent_paths = [paths[p] if p >= 0 else 0 for p in self.parents]
        return Counter(zip(parent_paths, paths, strict=True)), Counter(parent_paths)

    def structure(self) -> Tree:
        """The tree as `to_json(with_text=False)` saves it: no texts, tails, ids or elements
        (a cluster representative keeps only this, so it holds no page's DOM alive). The
        arrays, and the hashes computed so far, are shared."""
        n = len(self)
        tree = dataclasses.replace(self, texts=("",) * n, tails=("",) * n, wn_ids=(None,) * n,
                                   elements=None)
        for name in _CACHED:
            if name in self.__dict__:
                tree.__dict__[name] = self.__dict__[name]
        return tree

    def subtree_text(self, v: int) -> str:
        """The text under `v` in document order (its own tail excluded), one line per block."""
        return _subtree_text(self, v)

    def to_json(self, with_text: bool = True) -> dict[str, Any]:
        """A JSON-ready dict (lists of str/int); hashes and element references are omitted."""
        data: dict[str, Any] = {"tags": list(self.tags), "labels": list(self.labels),
                                "parents": list(self.parents)}
        if with_text:
            data["texts"] = list(self.texts)
            data["tails"] = list(self.tails)
            data["wn_ids"] = list(self.wn_ids)
        return data

    @classmethod
    def from_json(cls, data: Any) -> Tree:
        """Rebuild a tree from `to_json` output; raise `TreeError` on anything malformed."""
        if not isinstance(data, dict):
            raise TreeError("a tree must be a JSON object")
        tags, labels, parents = data.get("tags"), data.get("labels"), data.get("parents")
        if not (isinstance(tags, list) and isinstance(labels, list)
                and isinstance(parents, list) and _all_of(tags, str)
                and _all_of(labels, str) and _all_of(parents, int)):
            raise TreeError("a tree needs lists 'tags' and 'labels' of strings and 'parents' "
                            "of integers")
        texts, tails, ids = data.get("texts"), data.get("tails"), data.get("wn_ids")
        if texts is not None and not _all_of(texts, str):
            raise TreeError("'texts' must be a list of strings")
        if tails is not None and not _all_of(tails, str):
            raise TreeError("'tails' must be a list of strings")
        if ids is not None and not (isinstance(ids, list)
                                    and all(i is None or isinstance(i, int) for i in ids)):
            raise TreeError("'wn_ids' must be a list of integers or nulls")
        return from_arrays(tags, labels, parents, texts=texts, tails=tails, wn_ids=ids)


_CACHED = ("hashes", "tag_hashes", "tag_paths", "tag_path_counts")
"""The `Tree` properties computed on first use (`functools.cached_property`)."""


def _all_of(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool)
                                           for v in value)


def normalize_space(text: str | None) -> str:
    """Collapse runs of whitespace to one space and strip the ends."""
    return " ".join(text.split()) if text else ""


def make_label(tag: str, own_text: str, classes: str | None, options: LabelOptions) -> str:
    """The vertex label of an element: tag, optional sorted classes, optional text digest."""
    label = tag
    if options.with_class and classes:
        label += LABEL_CLASS_SEP + ".".join(sorted(classes.split()))
    if options.with_text and own_text:
        digest = hashlib.blake2b(own_text.encode("utf-8", "surrogatepass"),
                                 digest_size=TEXT_DIGEST_BYTES).hexdigest()
        label += LABEL_TEXT_SEP + digest
    return label


def build_tree(root: HtmlElement, options: LabelOptions | None = None,
               keep_elements: bool = True) -> Tree:
    """Build the tree of the elements under `root` (itself included).

    Comments and processing instructions are not nodes; their tails count as text of the
    node before them (the parent's text, or the previous element's tail). Each element's
    label follows `options` (see the module docstring).
    """
    return read_tree(root, options, keep_elements).tree


@dataclass(frozen=True)
class ReadTree:
    """A tree built from lxml elements, with what reading them gave besides the tree."""

    tree: Tree
    index: dict[HtmlElement, int]
    """The node number of each element."""
    raw_texts: list[str] | None
    """Each node's lxml .text ("" for None), unnormalised; None when the subtree held
    comments or processing instructions (whose tails `Tree.texts` folds in)."""
    raw_tails: list[str] | None
    """Each node's lxml .tail ("" for None and for the root), like `raw_texts`."""
    raw_tags: list[str] | None = None
    """Each node's lxml .tag as read (`Tree.tags` lower-cases them), like `raw_texts`: ECON's
    counts (`econ.stats_from_arrays`) keep them, and lxml makes a new string on every read."""

    @cached_property
    def text_lengths(self) -> list[int]:
        """Each node's text length as lxml's `text_content()` gives it (its raw text and its
        descendants' raw texts and tails, the node's own tail not), computed on first use:
        from the raw texts in one pass, else element by element."""
        texts, tails = self.raw_texts, self.raw_tails
        if texts is None or tails is None:
            elements = self.tree.elements
            assert elements is not None
            return [len(el.text_content()) for el in elements]
        lengths = [len(text) for text in texts]
        parents = self.tree.parents
        for v in range(len(lengths) - 1, 0, -1):
            lengths[parents[v]] += lengths[v] + len(tails[v])
        return lengths


def read_tree(root: HtmlElement, options: LabelOptions | None = None,
              keep_elements: bool = True, with_ids: bool = True) -> ReadTree:
    """`build_tree` plus the element index and, for element-only subtrees (every parsed
    page), the raw texts: the text nodes of a subtree in document order are then exactly
    its raw texts and its descendants' raw tails. Without `with_ids` (the caller knows no
    element carries a `data-wn` id) the ids are not read: all are None."""
    options = options or LabelOptions()
    elements = list(root.iter())
    index = {el: n for n, el in enumerate(elements)}
    raw_tags = [el.tag for el in elements]
    element_only = all(isinstance(tag, str) for tag in raw_tags)
    if element_only:
        parents, raw_texts, raw_tails = _preorder_links(elements, index)
    else:
        elements, parents, raw_texts, raw_tails = _walk_nodes(root)
        index = {el: n for n, el in enumerate(elements)}
        raw_tags = [el.tag for el in elements]
    texts = [" ".join(t.split()) if t else "" for t in raw_texts]  # normalize_space, inlined
    tails = [" ".join(t.split()) if t else "" for t in raw_tails]
    tags = _tag_names(raw_tags)
    if options.with_class:
        own = _own_texts(parents, texts, tails)
        labels = [make_label(tags[v], own[v], elements[v].get("class"), options)
                  for v in range(len(elements))]
    elif options.with_text:  # make_label without classes: the bare tag when there is no text
        own = _own_texts(parents, texts, tails)
        labels = [make_label(tag, text, None, options) if text else tag
                  for tag, text in zip(tags, own, strict=True)]
    else:
        labels = tags  # make_label with neither option is the bare tag
    ids: list[int | None] = [None] * len(elements)
    if with_ids:
        ids = [None if value is None else parse_wn_id(value)
               for value in [el.get(WN_ID) for el in elements]]
    children, depths = _children_depths(parents)
    tree = _assemble(tags, labels, parents, children, depths, texts, tails, ids,
                     elements if keep_elements else None)
    if not element_only:
        return ReadTree(tree, index, None, None)  # comment tails were joined with spaces
    return ReadTree(tree, index, raw_texts, raw_tails, raw_tags)


def _preorder_links(elements: Sequence[HtmlElement], index: dict[HtmlElement, int]
                    ) -> tuple[list[int], list[str], list[str]]:
    """Parents, raw texts and raw tails of elements in lxml's preorder, for a subtree that
    holds elements only (its iteration order is then the tree's numbering)."""
    parents = [index.get(el.getparent(), -1) for el in elements]
    parents[0] = -1
    texts = [el.text or "" for el in elements]
    tails = [el.tail or "" for el in elements]
    tails[0] = ""
    return parents, texts, tails


def _walk_nodes(root: HtmlElement
                ) -> tuple[list[HtmlElement], list[int], list[str], list[str]]:
    """Elements, parents, raw texts and raw tails in preorder, with an explicit stack; the
    tails of non-element nodes join the text of the node before them."""
    elements: list[HtmlElement] = []
    parents: list[int] = []
    texts: list[str] = []
    tails: list[str] = []
    moved_tails: dict[int, list[str]] = {}
    stack: list[tuple[HtmlElement, int]] = [(root, -1)]
    while stack:
        el, parent = stack.pop()
        index = len(elements)
        elements.append(el)
        parents.append(parent)
        tail = (el.tail or "") if parent >= 0 else ""
        tails.append(" ".join([tail, *moved_tails.pop(id(el), ())]))
        lead, kids = _element_children(el, moved_tails)
        texts.append(lead)
        stack.extend((kid, index) for kid in reversed(kids))
    return elements, parents, texts, tails


def _tag_names(raw_tags: Sequence[Any]) -> list[str]:
    """Lower-cased tag names ("" for a non-string tag), each distinct tag lowered once."""
    lowered: dict[Any, str] = {}
    out = []
    for tag in raw_tags:
        name = lowered.get(tag)
        if name is None:
            name = lowered[tag] = tag.lower() if isinstance(tag, str) else ""
        out.append(name)
    return out


def _element_children(el: HtmlElement,
                      moved_tails: dict[int, list[str]]) -> tuple[str, list[HtmlElement]]:
    """The leading text and the element children of `el`.

    The tail of a non-element child joins the leading text when no element child precedes
    it, else the previous element child's tail (keyed by `id()`: the child is alive on the
    build stack until its own turn, where `build_tree` collects it).
    """
    lead = [el.text or ""]
    kids: list[HtmlElement] = []
    for child in el:
        if isinstance(child.tag, str):
            kids.append(child)
        elif child.tail and kids:
            moved_tails.setdefault(id(kids[-1]), []).append(child.tail)
        elif child.tail:
            lead.append(child.tail)
    return " ".join(lead), kids


def _own_texts(parents: Sequence[int], texts: Sequence[str], tails: Sequence[str]) -> list[str]:
    """Each node's own text: its leading text and the tails of its children, in order."""
    parts: list[list[str]] = [[t] if t else [] for t in texts]
    for v in range(1, len(parents)):
        if tails[v]:
            parts[parents[v]].append(tails[v])
    return [" ".join(p) for p in parts]


def from_arrays(tags: Sequence[str], labels: Sequence[str], parents: Sequence[int],
                texts: Sequence[str] | None = None, tails: Sequence[str] | None = None,
                wn_ids: Sequence[int | None] | None = None,
                elements: Sequence[HtmlElement] | None = None) -> Tree:
    """Make a `Tree` from preorder arrays (parents[0] == -1); raise `TreeError` otherwise."""
    n = len(labels)
    for name, arr in (("tags", tags), ("parents", parents), ("texts", texts),
                      ("tails", tails), ("wn_ids", wn_ids)):
        if arr is not None and len(arr) != n:
            raise TreeError(f"'{name}' has {len(arr)} entries for {n} labels")
    if n == 0:
        raise TreeError("a tree needs at least one node")
    _check_preorder(parents)
    children, depths = _children_depths(parents)
    return _assemble(tags, labels, parents, children, depths, texts, tails, wn_ids, elements)


def _assemble(tags: Sequence[str], labels: Sequence[str], parents: Sequence[int],
              children: tuple[tuple[int, ...], ...], depths: tuple[int, ...],
              texts: Sequence[str] | None, tails: Sequence[str] | None,
              wn_ids: Sequence[int | None] | None,
              elements: Sequence[HtmlElement] | None) -> Tree:
    """The `Tree` of checked preorder arrays, with sizes computed (hashes on first use)."""
    n = len(labels)
    sizes = _sizes(parents)
    return Tree(tags=tuple(tags), labels=tuple(labels), parents=tuple(parents),
                children=children, depths=depths, sizes=sizes,
                texts=tuple(texts) if texts is not None else ("",) * n,
                tails=tuple(tails) if tails is not None else ("",) * n,
                wn_ids=tuple(wn_ids) if wn_ids is not None else (None,) * n,
                elements=tuple(elements) if elements is not None else None)


def _children_depths(parents: Sequence[int]
                     ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Children lists and depths of parents in preorder (built from a tree, or checked)."""
    kids: list[list[int]] = [[] for _ in parents]
    depths = [0] * len(parents)
    for v, p in enumerate(parents):
        if p >= 0:
            kids[p].append(v)
            depths[v] = depths[p] + 1
    return tuple(map(tuple, kids)), tuple(depths)


def _check_preorder(parents: Sequence[int]) -> None:
    """Raise TreeError unless the parents describe a preorder numbering.

    In preorder the parent of node v is on the path from the root to node v - 1 (the open
    nodes); any other parent would break subtree contiguity.
    """
    if parents[0] != -1:
        raise TreeError("node 0 must be the root (parent -1)")
    open_path = [0]
    for v in range(1, len(parents)):
        p = parents[v]
        if not 0 <= p < v:
            raise TreeError(f"node {v} has parent {p}; parents must precede their children")
        while open_path and open_path[-1] != p:
            open_path.pop()
        if not open_path:
            raise TreeError(f"node {v} is not in preorder: its parent {p} is already closed")
        open_path.append(v)


def _sizes(parents: Sequence[int]) -> tuple[int, ...]:
    sizes = [1] * len(parents)
    for v in range(len(parents) - 1, 0, -1):
        sizes[parents[v]] += sizes[v]
    return tuple(sizes)


def _subtree_hashes(labels: Sequence[str],
                    children: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Post-order hashes in one reverse-preorder pass: a node's hash covers its label and
    its children's hashes in order, so equal hashes mean identical subtrees (up to 64-bit
    collisions, which RTDM additionally guards with equal subtree sizes)."""
    hashes = [0] * len(labels)
    for v in range(len(labels) - 1, -1, -1):
        kids = children[v]
        hashes[v] = hash((labels[v], tuple([hashes[c] for c in kids]))) if kids else \
            hash((labels[v],))
    return tuple(hashes)


def _subtree_text(tree: Tree, v: int) -> str:
    """Document-order text of v's subtree: a node's text, its children, then its tail."""
    out: list[str] = []
    end = v + tree.sizes[v]
    closing: list[int] = []
    for u in range(v, end):
        while closing and closing[-1] + tree.sizes[closing[-1]] <= u:
            _close(tree, closing.pop(), v, out)
        if tree.tags[u] in BLOCK_TAGS:
            out.append("\n")
        if tree.texts[u]:
            out.append(tree.texts[u])
        closing.append(u)
    while closing:
        _close(tree, closing.pop(), v, out)
    lines = (" ".join(line.split()) for line in " ".join(out).split("\n"))
    return "\n".join(line for line in lines if line)


def _close(tree: Tree, u: int, root: int, out: list[str]) -> None:
    if tree.tags[u] in BLOCK_TAGS:
        out.append("\n")
    if u != root and tree.tails[u]:
        out.append(tree.tails[u])

