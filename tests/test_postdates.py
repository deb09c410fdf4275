"""Members' dates (joined, last seen) are never a post's date, in every language."""

from __future__ import annotations

from datetime import UTC, datetime

import lxml.html
import pytest
import winnow
from winnow.mibat_dom import dom_tree
from winnow.postfields import member_date, pick_pivot

NOW = datetime(2025, 11, 10, 12, 0, tzinfo=UTC)

TEXTS = ("Why did the image grow so much between the two releases this year?",
         "The boot loader changed, so the kernel is stored twice on the image now.",
         "Thanks, that explains it. I had not noticed the boot loader change at all.")


def record(i: int, label: str) -> str:
    """A user column with a member's date first, the post's date after it."""
    return (f'<div class="post"><div class="side"><a class="username" href="/u/{i}">m{i}</a>'
            f'<dl><dt>{label}</dt><dd>March {i}, 2010, 09:0{i}</dd></dl></div>'
            f'<div class="main"><div class="when">November {i}, 2025, 10:0{i}</div>'
            f'<div class="msg"><p>{TEXTS[i - 1]}</p></div></div></div>')


@pytest.mark.parametrize("label", ["Joined", "Member since", "Last seen", "Registriert",
                                   "Zuletzt online", "Inscrit le", "Dernière visite",
                                   "Miembro desde", "Última visita", "Ultimo accesso",
                                   "Laatst gezien", "Зарегистрирован", "Был в сети", "注册时间",
                                   "最終ログイン"])
def test_a_members_date_is_not_the_post_date(label: str) -> None:
    html = ("<html><body><h1>Image size</h1>" + "".join(record(i, label) for i in (1, 2, 3))
            + "</body></html>")
    result = winnow.extract(html, "https://bbs.example/t/1", now=NOW)
    assert result.kind == "thread"
    assert [p.published[:10] if p.published else None for p in result.posts] == \
        ["2025-11-01", "2025-11-02", "2025-11-03"]


def test_a_pivot_labelled_joined_loses_to_the_post_date() -> None:
    root = lxml.html.fromstring(
        "<div><p><span>Joined: Mar 2, 2010</span></p><p><span>Nov 3, 2025 10:00</span></p>"
        "</div>")
    dom = dom_tree(root)
    pivots = [v for v, c in enumerate(dom.cand) if c]
    assert len(pivots) == 2
    assert member_date(dom, pivots[0]) and not member_date(dom, pivots[1])
    assert pick_pivot(dom, pivots) == pivots[1]


def abbr_record(i: int, recent: bool) -> str:
    """Recent dates in <abbr>, older ones in <span>, the same place in the template."""
    tag = "abbr" if recent else "span"
    return (f'<li class="msg"><div class="side"><a class="username" href="/u/{i}">m{i}</a>'
            f'<dl><dt>Joined</dt><dd>Mar {i}, 2010</dd></dl></div>'
            f'<div class="main"><div class="head"><a href="#p{i}"><{tag} class="dt">Nov {i}, '
            f'2025 at 10:0{i} AM</{tag}></a></div>'
            f'<div class="msg-body"><p>{TEXTS[(i - 1) % 3]}</p></div></div></li>')


def test_dates_in_abbr_and_span_are_one_kind() -> None:
    """Tree matching treats a date's own inline tag (span, abbr, time) as one tag: every
    record is found, each with its own post date, not the member's."""
    records = "".join(abbr_record(i, i > 2) for i in range(1, 5))
    html = f"<html><body><h1>Image size</h1><ol class='list'>{records}</ol></body></html>"
    result = winnow.extract(html, "https://bbs.example/t/2", now=NOW)
    assert result.kind == "thread"
    assert [p.published[:10] if p.published else None for p in result.posts] == \
        ["2025-11-01", "2025-11-02", "2025-11-03", "2025-11-04"]


def edited_record(i: int, note: bool) -> str:
    """A date line that may carry an edit note after the post's date, inside it."""
    edit = f'<span class="edit">(last modified: 2025-11-0{i + 4}, 09:00 AM by m{i})</span>' \
        if note else '<span class="edit"></span>'
    return (f'<div class="post"><div class="side"><a class="username" href="/u/{i}">m{i}</a>'
            f'<div class="stats">Posts: 1{i}<br>Joined: Mar 201{i}</div></div>'
            f'<div class="main"><div class="head"><span class="date">2025-11-0{i}, 10:0{i} AM '
            f'{edit}</span></div><div class="msg"><p>{TEXTS[(i - 1) % 3]}</p></div></div>'
            '</div>')


def test_an_edit_note_in_the_date_line_keeps_the_post_date() -> None:
    """A date behind a change note's label ("last modified:") is no candidate pivot: the
    first post's date line, which holds it, still aligns with the other posts' date lines,
    and every post keeps its date and loses the line from its text."""
    records = "".join(edited_record(i, i == 1) for i in range(1, 4))
    html = f"<html><body><h1>Image size</h1>{records}</body></html>"
    result = winnow.extract(html, "https://bbs.example/t/3", now=NOW)
    assert result.kind == "thread"
    assert [p.published[:10] if p.published else None for p in result.posts] == \
        ["2025-11-01", "2025-11-02", "2025-11-03"]
    assert [p.text for p in result.posts] == list(TEXTS)
