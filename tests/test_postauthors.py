"""Authors by structure and by whole class words; unsigned threads of free text."""

from __future__ import annotations

from datetime import UTC, datetime

import lxml.html
import pytest
import winnow
from winnow.postfields import author_hinted, class_words

NOW = datetime(2025, 11, 10, 12, 0, tzinfo=UTC)

TEXTS = ("Why did the image grow so much between the two releases this year?",
         "The boot loader changed, so the kernel is stored twice on the image now.",
         "Thanks, that explains it. I had not noticed the boot loader change at all.",
         "Also the firmware package keeps growing with every release, as usual.")


def page(records: list[str]) -> str:
    return ("<html><head><title>Image size</title></head><body><nav><a href='/'>Index</a>"
            "</nav><h1>Image size</h1><div id='main'>" + "".join(records) +
            "</div><footer>Powered by a board, 2025.</footer></body></html>")


def dl_record(i: int, name: str, text: str) -> str:
    """FluxBB's user column: the name in a bare `<dt><strong>`, a rank below it."""
    return (f'<div class="box"><h2><span>#{i}</span> <a href="viewtopic.php?pid={i}#p{i}">'
            f'2025-11-0{i} 15:14:37</a></h2><div class="left"><dl><dt><strong>{name}</strong></dt>'
            f'<dd class="rank"><strong>{"Member" if i % 2 else "Admin"}</strong></dd>'
            f'<dd><span>Posts: {i * 7}</span></dd></dl></div>'
            f'<div class="right"><div class="msg"><p>{text}</p></div></div></div>')


def test_a_bare_name_in_the_same_place_of_every_record_is_the_author() -> None:
    names = ["chunix", "nl6720", "chunix", "nl6720"]
    html = page([dl_record(i, n, t) for i, (n, t) in enumerate(zip(names, TEXTS, strict=False), 1)])
    result = winnow.extract(html, "https://bbs.example/viewtopic.php?id=1", now=NOW)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == names
    assert [p.text for p in result.posts] == list(TEXTS)


def says_record(name: str, day: int, text: str) -> str:
    """A comment header `<strong>Vega</strong> Says:` with no class naming it."""
    return (f'<li class="c"><div class="head"><strong>{name}</strong> Says:<br>'
            f'<small>March {day}, 2024 at 10:0{day} am</small></div>'
            f'<div class="say"><p>{text}</p></div></li>')


def test_a_name_before_says_is_the_author() -> None:
    names = ["Vega", "Altair", "Vega"]
    items = [says_record(n, d, t)
             for d, (n, t) in enumerate(zip(names, TEXTS, strict=False), 1)]
    html = page(["<ol class='list'>" + "".join(items) + "</ol>"])
    result = winnow.extract(html, "https://blog.example/2024/03/post", now=NOW)
    posts = result.posts if result.kind == "thread" else (
        result.article.comments if result.article else [])
    assert [p.author for p in posts] == names


def test_a_template_label_in_every_record_is_not_the_author() -> None:
    """'Offline' stands in every record: a label, even when it comes first."""
    names = ["ann", "bob"]
    html = page([dl_record(i, n, t).replace('<div class="left">', '<p>Offline</p>'
                                            '<div class="left">')
                 for i, (n, t) in enumerate(zip(names, TEXTS, strict=False), 1)])
    result = winnow.extract(html, "https://bbs.example/viewtopic.php?id=2", now=NOW)
    posts = result.posts if result.kind == "thread" else []
    assert all(p.author != "Offline" for p in posts)


@pytest.mark.parametrize(("names", "words"), [
    ("CommentAccountName", ["comment", "account", "name"]),
    ("post-author_link", ["post", "author", "link"]),
    ("userInfo XMLName", ["user", "info", "xml", "name"]),
])
def test_class_names_split_into_words(names: str, words: list[str]) -> None:
    assert class_words(names) == words


@pytest.mark.parametrize(("cls", "hinted"), [
    ("CommentAccountName", True),     # "Name" glued to "Account" in camelCase
    ("postauthor", True),             # an author stem glued to a lower-case word
    ("renamed-block", False),         # "name" inside another word is no author
    ("filename", False),
    ("username", True),
])
def test_author_class_words_match_as_whole_words(cls: str, hinted: bool) -> None:
    el = lxml.html.fragment_fromstring(f'<span class="{cls}">x</span>')
    assert author_hinted(el) is hinted


def account_record(name: str, label: str, day: int, text: str) -> str:
    return (f'<div class="CommentItem"><div class="CommentAccountName">'
            f'<span>{name}</span></div><div class="CommentDate">{day} March 2024</div>'
            f'<div class="CommentBody"><p>{text}</p></div>'
            f'<div class="bar"><a href="#r{day}">{label}</a></div></div>')


def test_action_labels_and_initials_are_not_authors() -> None:
    """"Répondre en citant le message" opens with an action word; "D" is an avatar's
    initial. Neither is a name, though both stand where names stand."""
    records = [account_record("D", "Répondre en citant le message", d, t)
               for d, t in enumerate(TEXTS[:3], 1)]
    html = page(records)
    result = winnow.extract(html, "https://site.example/a/1", now=NOW)
    posts = result.posts if result.kind == "thread" else (
        result.article.comments if result.article else [])
    assert all(p.author not in ("D", "Répondre en citant le message") for p in posts)


def test_a_camel_case_account_name_class_signs_the_records() -> None:
    names = ["Dana Scully", "Fox Mulder", "Dana Scully"]
    records = [account_record(n, "Reply", d, t)
               for d, (n, t) in enumerate(zip(names, TEXTS, strict=False), 1)]
    result = winnow.extract(page(records), "https://site.example/a/2", now=NOW)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == names


def unsigned_record(day: int, text: str) -> str:
    return (f'<div class="entry"><div class="when">{day} March 2024, 10:0{day}</div>'
            f'<div class="words"><p>{text}</p></div></div>')


def test_unsigned_records_of_free_text_are_posts_when_nothing_is_signed() -> None:
    """Unsigned, dated records of free text in a section named for comments are posts."""
    html = page(["<div class='comments'>"] + [unsigned_record(d, t)
                                             for d, t in enumerate(TEXTS, 1)] + ["</div>"])
    result = winnow.extract(html, "https://board.example/t/3", now=NOW)
    assert result.kind == "thread"
    assert [p.text for p in result.posts] == list(TEXTS)
    assert all(p.author is None for p in result.posts)


def test_unsigned_records_of_links_are_no_posts() -> None:
    """Dated link teasers are not someone's writing: no thread."""
    records = [f'<div class="entry"><div class="when">{d} March 2024</div>'
               f'<div class="words"><a href="/story/{d}">{t}</a></div></div>'
               for d, t in enumerate(TEXTS, 1)]
    result = winnow.extract(page(records), "https://board.example/t/4", now=NOW)
    assert result.kind != "thread"


ARTICLE = ("<p>The storm crossed the coast in the early hours, with winds stronger than any "
           "the town had seen in decades, and the river rose through the night.</p>")


def byline_record(text: str) -> str:
    return (f'<div class="meta"><a class="author" href="/people/kim">Kim Lee</a>'
            f'<span class="when">March 27, 2017 at 6:13pm</span>{text}</div>')


@pytest.mark.parametrize("echo", ["", '<div class="share"><a href="/s/fb">Share</a> · '
                                      '<a href="/s/tw">Tweet</a></div>'])
def test_an_article_byline_and_its_empty_echo_are_no_thread(echo: str) -> None:
    """Two records by one author, one of them empty or only share buttons: an article's
    byline above it and repeated below it, not a thread."""
    html = ("<html><body><h1>Storm hits the coast</h1><article>" + byline_record("") +
            ARTICLE * 3 + byline_record(echo) + "</article></body></html>")
    result = winnow.extract(html, "https://news.example/2017/03/27/storm", now=NOW)
    assert result.kind == "article"


def section_record(title: str, minute: int) -> str:
    return (f'<div class="update"><h2>{title}</h2><div class="stamp">March 27, 2017 at '
            f'6:1{minute}pm</div>' + ARTICLE + "</div>")


def test_two_dated_sections_of_an_article_are_no_thread() -> None:
    """Headings are no names, and two unsigned dated sections are an article's parts."""
    html = ("<html><body><h1>Storm hits the coast</h1><div class='story'>" +
            section_record("Flood dangers", 3) + section_record("Islands hit", 8) +
            "</div></body></html>")
    result = winnow.extract(html, "https://news.example/2017/03/27/storm-2", now=NOW)
    assert result.kind == "article"


def test_bold_lines_heading_runs_of_paragraphs_are_no_thread() -> None:
    """An article's sections, each a bold line, a dated link and paragraphs: the bold words
    are no names, and runs of paragraphs are no posts."""
    sections = "".join(
        f"<p><strong>{kind}</strong></p><p><a href='https://ev.example/{n}'>Event {n}, "
        f"{n + 8} November</a></p>" + ARTICLE
        for n, kind in enumerate(["Music", "Festival", "Comedy", "Art", "Festival"], 1))
    html = ("<html><body><h1>What's on this week</h1><div class='body'>" + sections +
            "</div></body></html>")
    result = winnow.extract(html, "https://news.example/whats-on", now=NOW)
    assert result.kind == "article"


def test_labels_that_never_recur_are_no_names() -> None:
    """A list of four books, each with its genre where a name could stand: on four records
    or more, a thread's names recur (someone posts twice), genres of a list need not."""
    genres = ["Science Fiction", "Chick Lit", "Gothic", "Romance"]
    items = "".join(
        f"<li><div class='g'><span>{g}</span></div><div class='d'>June {d}, 2025</div>"
        f"<div class='x'><p>{TEXTS[d - 1]}</p></div></li>" for d, g in enumerate(genres, 1))
    html = page([f"<ul class='books'>{items}</ul>"])
    result = winnow.extract(html, "https://books.example/new", now=NOW)
    assert result.kind != "thread"


def avatar_record(i: int, name: str, text: str) -> str:
    """A letter avatar (the name's initial) and a hidden-from-sight status inside the
    profile link around it, the name's own link after it."""
    return (f'<li class="post"><div class="side"><a href="/user/{name}">'
            f'<span class="avatar">{name[0].upper()}</span><span class="status offline">'
            f'<span class="visually-hidden">Offline</span></span></a></div>'
            f'<div class="main"><div class="head"><a href="/user/{name}">{name}</a> '
            f'<span class="when">Nov {i}, 2025 at 10:0{i} AM</span></div>'
            f'<div class="content"><p>{text}</p></div></div></li>')


def test_an_avatars_initial_and_status_are_not_the_name() -> None:
    """A profile link whose text is only an avatar's letter and a status ("J Offline") names
    no one: the name's link after it does."""
    names = ["julian", "kichae", "julian", "barisu"]
    html = page(["<ul>", *(avatar_record(i, n, t) for i, (n, t)
                           in enumerate(zip(names, TEXTS, strict=False), 1)), "</ul>"])
    result = winnow.extract(html, "https://bbs.example/topic/1", now=NOW)
    assert result.kind == "thread"
    assert [p.author for p in result.posts] == names
