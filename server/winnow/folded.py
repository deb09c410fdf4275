"""Folded panels: content hidden until a control on the page shows it.

A tab panel (`role="tabpanel"`), an accordion's body or a "read more" disclosure is hidden
(the `hidden` attribute, `aria-hidden`, `display:none`, a hiding class) only until its tab or
button is pressed: a documentation page's code in the other languages, a service page's FAQ
answers, a product's specification tab. It is part of the page's main content, where other
hidden blocks (a slide-out cart, a cookie notice, a mobile menu) are not. A panel is known
by its role or by a control that names it: an element with `aria-controls` that is a tab
or says whether it is expanded (`aria-expanded`), or a Bootstrap toggle (`data-toggle` or
`data-bs-toggle` "tab", "pill" or "collapse") whose target is the panel's id (read at parse
time, before buttons are dropped: `Page.controlled_ids`), or by the role "region" labelled by
its control (`aria-labelledby`: WAI-ARIA's accordion pattern, whose button may name no id the
page holds). A hidden element whose only child, or only child's only child, is a panel is
folded with it (the collapse around an accordion's panel hides it, not the panel itself).
Dialogs, menus and the other roles of PANEL_NOISE_ROLES are not panels whatever controls
them. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable

from winnow.article_names import has_word, name_tokens
from winnow.page import WN_HIDDEN, HtmlElement, Page, is_hidden

PANEL_ROLE = "tabpanel"
REGION_ROLE = "region"
"""The role of an accordion's panel, a panel when its control labels it (`aria-labelledby`)."""

PANEL_NOISE_ROLES = frozenset({"dialog", "alertdialog", "menu", "menubar", "listbox",
                               "tooltip", "navigation", "search", "banner", "contentinfo"})
"""Roles of elements a control shows that are not content: dialogs, menus, pickers."""

OVERLAY_WORDS = frozenset({"modal", "dialog"})
"""Class and id words of overlays (the `role="dialog"` of pages that do not say the role): a
hidden overlay's prose (a privacy notice, a sign-up pitch) is not folded content, nor is the
panel it holds folded by it."""


def folded_panels(page: Page, root: HtmlElement,
                  named: Iterable[HtmlElement]) -> set[HtmlElement]:
    """The panels under `root` that a control of the page shows (see the module's doc),
    hidden or not, among `named`, the elements under `root` (itself included) with a role
    or an id attribute: a panel is known by one or the other."""
    ids = page.controlled_ids
    panels: set[HtmlElement] = set()
    for el in named:
        role = (el.get("role") or "").strip().lower()
        if role in PANEL_NOISE_ROLES:
            continue
        if role == PANEL_ROLE or (el.get("id") or "") in ids \
                or role == REGION_ROLE and el.get("aria-labelledby"):
            panels.add(el)
            panels.update(_folding_wrappers(el, root))
    return panels


WRAPPER_REACH = 2
"""Levels above a panel searched for the hidden wrapper that folds it (a collapse element
around the panel, its only child)."""


def _folding_wrappers(panel: HtmlElement, root: HtmlElement) -> list[HtmlElement]:
    """The hidden ancestors of `panel` (WRAPPER_REACH at most, below `root`) through which it
    is an only child: they fold the panel."""
    found = []
    node = panel
    for _ in range(WRAPPER_REACH):
        parent = node.getparent()
        if parent is None or node is root or len(parent) != 1 or (parent.text or "").strip() \
                or (node.tail or "").strip() or _is_overlay(parent):
            break
        if is_hidden(parent):
            found.append(parent)
        node = parent
    return found


def _is_overlay(el: HtmlElement) -> bool:
    """Whether an element's role or its class and id words say it is an overlay (a dialog, a
    menu: PANEL_NOISE_ROLES, OVERLAY_WORDS)."""
    if (el.get("role") or "").strip().lower() in PANEL_NOISE_ROLES:
        return True
    return has_word(name_tokens(f"{el.get('class') or ''} {el.get('id') or ''}"), OVERLAY_WORDS)


def unfold(el: HtmlElement, hiding_classes: frozenset[str]) -> None:
    """Show a folded panel: drop the attributes and classes that hide it (in place; callers
    unfold their copy of the page)."""
    for attr in (WN_HIDDEN, "hidden", "aria-hidden"):
        if el.get(attr) is not None:
            del el.attrib[attr]
    style = el.get("style")
    if style:
        el.set("style", ";".join(rule for rule in style.split(";") if not _hides(rule)))
    classes = el.get("class")
    if classes:
        el.set("class", " ".join(c for c in classes.split() if c not in hiding_classes))


def _hides(rule: str) -> bool:
    """Whether one inline style declaration hides its element."""
    name, _, value = rule.partition(":")
    words = value.lower().split()
    return bool(words) and (name.strip().lower(), words[0]) in (("display", "none"),
                                                                ("visibility", "hidden"))
