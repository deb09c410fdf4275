"""`mainregion.left_out_prose`: whether ECON's pruning left a landing page's other sections,
prose and all, out of its body (then a page leaning to the readerless types is read as its
main region), or only what an article's region adds: menus, tags, teasers."""

from lxml import html
from winnow.article import ArticleContent
from winnow.mainregion import LEFT_OUT_MIN_LINES, left_out_prose

BODY = [
    ("h1", "Managed backups for small offices"),
    ("p", "We copy every file you change to two data centres, every hour, and keep a year of "
          "versions."),
]

SECTIONS = [
    ("Restore in minutes",
     "Pick a file or a whole folder from any day of the past year and bring it back at once."),
    ("Encrypted on your machine",
     "Files are encrypted before they leave the office, with a key that only you hold."),
    ("Support that answers",
     "Our engineers answer the phone from eight to eight and know your setup by name."),
    ("Plans for every size",
     "Start with five computers and add more whenever the office grows, month by month."),
    ("Works with what you have",
     "Windows, macOS and the common NAS boxes are supported without extra hardware or setup."),
    ("No lock-in",
     "Export everything in open formats whenever you like, and leave without any fee."),
]


def text(blocks: list[tuple[str, str]]) -> str:
    return "\n".join(words for _, words in blocks)


def region(blocks: list[tuple[str, str]]) -> tuple[ArticleContent, str]:
    """A main region holding `blocks` (tag, text; tag "a" is a link in its own paragraph)."""
    inner = "".join(f'<p><a href="/x">{words}</a></p>' if tag == "a" else f"<{tag}>{words}</{tag}>"
                    for tag, words in blocks)
    root = html.fromstring(f"<div>{inner}</div>")
    return ArticleContent(root, root, [], [], "region", 0.0, 0), text(blocks)


def sections(heading_tag: str) -> list[tuple[str, str]]:
    return [block for heading, words in SECTIONS
            for block in ((heading_tag, heading), ("p", words))]


def test_sections_with_prose_outside_the_body_were_left_out():
    rest = sections("h3")
    assert len(rest) >= LEFT_OUT_MIN_LINES
    assert left_out_prose(text(BODY), *region(BODY + rest))


def test_menus_tags_and_link_lists_are_not_left_out_prose():
    rest = [("a", words) for words in (
        "Home", "Products", "Pricing", "Blog", "Contact us", "Tags: backup, office, cloud",
        "Ten ways to lose a file", "Why tape is back", "Our new data centre opens",
        "Share on social media", "Subscribe", "Privacy policy")]
    assert not left_out_prose(text(BODY), *region(BODY + rest))


def test_teasers_whose_linked_titles_head_their_summaries_are_not_left_out_prose():
    assert not left_out_prose(text(BODY), *region(BODY + sections("a")))


def test_a_few_lines_of_prose_are_not_a_landing_page():
    rest = sections("h3")[:2] + [("p", "About the author")]
    assert not left_out_prose(text(BODY), *region(BODY + rest))


def test_lines_the_body_holds_do_not_count_however_they_are_punctuated():
    rest = sections("h3")
    shouted = [(tag, words.upper() + "!") for tag, words in rest]
    assert not left_out_prose(text(BODY + rest), *region(BODY + shouted))


def test_summaries_inside_their_cards_links_are_not_left_out_prose():
    cards = "".join(f'<a href="/x"><h3>{heading}</h3><p>{words}</p></a>'
                    for heading, words in SECTIONS)
    root = html.fromstring(f"<div><h1>{BODY[0][1]}</h1><p>{BODY[1][1]}</p>{cards}</div>")
    region_text = text(BODY + sections("h3"))
    assert not left_out_prose(text(BODY), ArticleContent(root, root, [], [], "region", 0.0, 0),
                              region_text)
