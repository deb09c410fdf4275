"""`winnow.render.render_article`: clean HTML, text and Markdown from a content subtree."""

from __future__ import annotations

import lxml.etree as etree
import lxml.html
import pytest
from winnow.markdown import count_words
from winnow.render import (
    MAX_BLOCK_DEPTH,
    Rendered,
    best_srcset_url,
    is_placeholder,
    render_article,
    safe_url,
)

BASE = "https://example.com/news/story.html"
pytestmark = pytest.mark.usefixtures("default_recursion_limit")


def render(html: str, base_url: str | None = BASE, title: str | None = None) -> Rendered:
    """Render an HTML fragment wrapped in a <div>, as the extractor hands content over."""
    return render_article(lxml.html.fragment_fromstring(html, create_parent="div"), base_url,
                          title)


# --- structure ----------------------------------------------------------------------------------

def test_wrappers_unwrap_into_paragraphs() -> None:
    out = render("<div><div><span>Hello <b>bold</b></span> world</div>"
                 "<section>Second <i>line</i></section></div><p>  </p><p><span></span></p>")
    assert out.html == "<p>Hello <b>bold</b> world</p>\n<p>Second <i>line</i></p>"
    assert out.text == "Hello bold world\n\nSecond line"
    assert out.markdown == "Hello **bold** world\n\nSecond *line*"
    assert out.word_count == 5


def test_text_in_block_container_gets_paragraphs() -> None:
    out = render("<blockquote>quoted<p>para</p>after</blockquote>")
    assert out.html == "<blockquote><p>quoted</p><p>para</p><p>after</p></blockquote>"
    assert out.markdown == "> quoted\n>\n> para\n>\n> after"


def test_adjacent_blocks_never_glue_words() -> None:
    out = render("<div>alpha</div><div>beta</div><h2>gamma</h2>delta<td>epsilon</td>")
    assert out.text == "alpha\n\nbeta\n\ngamma\n\ndelta\n\nepsilon"


def test_breaks_and_double_breaks() -> None:
    out = render("<div>one<br>two<br><br>three<br></div>")
    assert out.html == "<p>one<br>two</p>\n<p>three</p>"
    assert out.text == "one\ntwo\n\nthree"
    assert out.markdown == "one  \ntwo\n\nthree"


def test_inline_markup_spanning_blocks_is_reopened() -> None:
    out = render('<a href="/x"><h3>Title</h3><p>Body</p></a>')
    assert out.html == ('<h3><a href="https://example.com/x">Title</a></h3>\n'
                        '<p><a href="https://example.com/x">Body</a></p>')


def test_allowed_attributes_only() -> None:
    out = render('<p class="x" id="y" style="color:red" lang="fr" dir="rtl" data-a="1">'
                 '<time datetime="2024-01-02" class="t">bonjour</time></p>'
                 '<ol start="3" reversed type="a"><li>c</li></ol>')
    assert out.html == ('<p lang="fr" dir="rtl"><time datetime="2024-01-02">bonjour</time></p>\n'
                        '<ol start="3" reversed=""><li>c</li></ol>')


def test_hidden_and_non_content_elements_dropped() -> None:
    out = render('<p>kept</p><p style="display: none">gone</p><p hidden>gone</p>'
                 '<form><input value="gone"><button>gone</button></form>'
                 '<p>also <!-- comment --> kept<video>gone</video></p>')
    assert out.text == "kept\n\nalso kept"


# --- lists -----------------------------------------------------------------------------------

def test_nested_lists() -> None:
    out = render("<ul><li>one<ul><li>nested <em>a</em></li><li>nested b</li></ul></li>"
                 "<li>two</li></ul><ol start='9'><li>nine</li><li>ten</li></ol>")
    assert out.markdown == ("- one\n  - nested *a*\n  - nested b\n- two\n\n"
                            "9. nine\n10. ten")
    assert out.text == "one\nnested a\nnested b\ntwo\n\nnine\nten"


def test_list_item_with_paragraphs_is_loose() -> None:
    out = render("<ol><li><p>first</p><p>more</p></li><li>second</li></ol>")
    assert out.markdown == "1. first\n\n   more\n2. second"


def test_stray_list_content_gets_items() -> None:
    out = render("<ul><div><li>in div</li></div>stray<ul><li>deep</li></ul></ul>")
    assert out.html == "<ul><li>in div</li><li>stray<ul><li>deep</li></ul></li></ul>"


# --- code --------------------------------------------------------------------------------------

def test_pre_kept_verbatim() -> None:
    out = render('<pre class="language-python">\ndef f(x):\n    <span class="k">return</span>'
                 '  x * 2<br>\n\n\npass</pre><p>then <code>a*b</code></p>')
    code = "def f(x):\n    return  x * 2\n\n\n\npass"
    assert out.html == f'<pre><code class="language-python">{code}</code></pre>\n' \
                       "<p>then <code>a*b</code></p>"
    assert out.text == f"{code}\n\nthen a*b"
    assert out.markdown == f"```python\n{code}\n```\n\nthen `a*b`"


def test_pre_lines_written_as_blocks() -> None:
    out = render('<pre><div class="row"><span class="ln">1</span><div class="line">'
                 '<span>npm</span> install</div></div><div class="row"><span class="ln">2</span>'
                 '<div class="line">npm test\n</div></div><p>no newline</p><div>end</div></pre>')
    assert out.text == "1\nnpm install\n2\nnpm test\nno newline\nend"


def test_pre_lines_written_as_inline_rows_without_newlines() -> None:
    """A minified highlighter writes each line in a `<span class="line">` with no newline
    between: the rows are lines; one line's tokens (spaced, or of other classes) are not."""
    out = render('<pre><code><span class="line"><span class="k">npm</span><span> create'
                 '</span></span><span class="line"><span class="k">cd</span><span> app</span>'
                 '</span></code></pre>')
    assert out.text == "npm create\ncd app"
    one = render('<pre><code><span class="n">cd</span> <span class="n">app</span></code></pre>')
    assert one.text == "cd app"


def test_code_fence_longer_than_backticks_inside() -> None:
    out = render("<pre>a ``` b</pre><p><code>x`y</code></p>")
    assert out.markdown == "````\na ``` b\n````\n\n``x`y``"


# --- tables ------------------------------------------------------------------------------------

def test_simple_table() -> None:
    out = render("<table><thead><tr><th>Name</th><th>Qty</th></tr></thead>"
                 "<tbody><tr><td>a|b</td><td>2</td></tr><tr><td>c</td><td></td></tr></tbody>"
                 "</table>")
    assert out.html == ("<table><thead><tr><th>Name</th><th>Qty</th></tr></thead><tbody>"
                        "<tr><td>a|b</td><td>2</td></tr><tr><td>c</td><td></td></tr></tbody>"
                        "</table>")
    assert out.text == "Name\tQty\na|b\t2\nc\t"
    assert out.markdown == "| Name | Qty |\n| --- | --- |\n| a\\|b | 2 |\n| c |  |"


def test_layout_table_is_unwrapped_into_paragraphs() -> None:
    out = render("<table><tr><td><table><tr><td>By A. Writer</td></tr></table><p>First, one."
                 "</p><p>Second, two.</p></td><td><p>Side, three.</p></td></tr></table>")
    assert "<table" not in out.html and "<td" not in out.html
    assert out.text == "By A. Writer\n\nFirst, one.\n\nSecond, two.\n\nSide, three."


def test_small_grid_of_words_and_headed_tables_stay_tables() -> None:
    grid = render("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>")
    headed = render("<table><tr><th>Name</th></tr><tr><td><p>Text, here.</p></td></tr></table>")
    assert grid.html.startswith("<table>") and headed.html.startswith("<table>")


def test_spanning_table_falls_back_to_html() -> None:
    out = render('<table><tr><td colspan="2" rowspan="1">wide</td></tr>'
                 "<tr><td>x</td><td>y</td></tr></table>")
    table = ('<table><tr><td colspan="2">wide</td></tr>'
             "<tr><td>x</td><td>y</td></tr></table>")
    assert out.markdown == table
    assert out.html == table.replace("<table>", "<table><tbody>").replace(
        "</table>", "</tbody></table>")


# --- images ------------------------------------------------------------------------------------

def test_lazy_image_data_src() -> None:
    out = render('<p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" '
                 'data-src="/img/a.jpg" alt="A  cat"></p>')
    assert out.html == '<p><img src="https://example.com/img/a.jpg" alt="A cat"></p>'
    assert out.images == ["https://example.com/img/a.jpg"]
    assert out.markdown == "![A cat](https://example.com/img/a.jpg)"


def test_srcset_picks_largest() -> None:
    assert best_srcset_url("s.jpg 320w, l.jpg 1024w, m.jpg 640w") == "l.jpg"
    assert best_srcset_url("a.jpg, b.jpg 2x, c.jpg 1.5x") == "b.jpg"
    assert best_srcset_url("https://c.io/w_80,h_80/i.jpg 80w, https://c.io/w_800/i.jpg 800w") \
        == "https://c.io/w_800/i.jpg"
    out = render('<img src="/spacer.gif" data-srcset="/s.jpg 300w, /l.jpg 900w">')
    assert out.images == ["https://example.com/l.jpg"]


def test_placeholder_detection() -> None:
    assert is_placeholder("data:image/png;base64,xx")
    assert is_placeholder("/images/blank.gif")
    assert is_placeholder("https://x.com/lazy-placeholder.png?v=2")
    assert not is_placeholder("https://x.com/photos/blanket.jpg")


def test_theme_graphics_are_left_out_and_uploads_kept() -> None:
    out = render('<p><img src="/wp-content/themes/news/img/reuse.png" alt="Reuse">'
                 '<img src="/mt-static/plugins/Theme/promo-small.png">'
                 '<img src="/wp-content/uploads/2019/04/halibut.jpg" alt="Halibut">'
                 '<img src="/wp-content/themes/news/thumb.php?src=/uploads/fish.jpg">'
                 '<img src="/sites/all/themes/fp/images/featured.gif">'
                 '<img src="/news/topics/themes/2019/parade.jpg"></p>')
    assert out.images == ["https://example.com/wp-content/uploads/2019/04/halibut.jpg",
                          "https://example.com/wp-content/themes/news/thumb.php?src=/uploads/fish.jpg",
                          "https://example.com/news/topics/themes/2019/parade.jpg"]


def test_picture_uses_best_source() -> None:
    out = render('<picture><source srcset="/p-800.webp 800w, /p-1600.webp 1600w">'
                 '<img src="/p-400.jpg" alt="P"></picture>')
    assert out.html == '<p><img src="https://example.com/p-1600.webp" alt="P"></p>'


def test_noscript_copy_replaces_placeholder() -> None:
    out = render('<figure><img src="/blank.gif" class="lazy">'
                 '<noscript><img src="/real.jpg" alt="Real"></noscript></figure>'
                 '<p><img data-src="/b.jpg"></p><noscript><img src="/b.jpg"></noscript>'
                 "<noscript><p>Enable JavaScript</p></noscript>")
    assert out.images == ["https://example.com/real.jpg", "https://example.com/b.jpg"]
    assert out.text == ""


def test_noscript_only_images_all_kept() -> None:
    out = render('<div class="lazy" data-src="/a.jpg"></div><noscript><img src="/a.jpg"></noscript>'
                 '<div class="lazy"></div><noscript><img src="/b.jpg" alt="B"></noscript>')
    assert out.images == ["https://example.com/a.jpg", "https://example.com/b.jpg"]


def test_noscript_fallback_keeps_its_images_not_its_notice() -> None:
    out = render('<p>Story.</p><noscript><img src="/hold.jpg"><div class="warning"><p>'
                 "Please turn on JavaScript.</p></div></noscript>")
    assert out.images == ["https://example.com/hold.jpg"]
    assert "JavaScript" not in out.text


def test_tracking_pixel_dropped() -> None:
    out = render('<p>text<img src="https://t.co/px.gif" width="1" height="1"></p>')
    assert out.html == "<p>text</p>"
    assert out.images == []


def test_figure_with_caption() -> None:
    out = render('<figure><div><img src="a.jpg" alt="Alt"></div>'
                 "<figcaption>The <em>caption</em></figcaption></figure>")
    assert out.html == ('<figure><img src="https://example.com/news/a.jpg" alt="Alt">'
                        "<figcaption>The <em>caption</em></figcaption></figure>")
    assert out.markdown == "![Alt](https://example.com/news/a.jpg)\n_The *caption*_"
    assert out.text == "The caption"  # the captions are all the text there is: they stay


def test_captions_stay_in_the_text_of_a_slideshow_told_in_captions() -> None:
    story = "The couple walked their newborn through the park on a sunny morning. " * 4
    slide = f'<div class="caption">{story}</div>'
    out = render(f"<p>1 / 18</p>{slide}")
    assert out.text == f"1 / 18\n\n{story.strip()}"
    out = render(f"<p>{story} {story}</p>{slide}")
    assert out.text == f"{story.strip()} {story.strip()}"


def test_captions_and_credits_stay_in_html_and_leave_the_text() -> None:
    out = render('<p>Prose one.</p><div class="wp-caption"><img src="a.jpg">'
                 '<p class="wp-caption-text">A harbour at dawn</p></div>'
                 '<p>Prose <span class="photoCredit">Photo: Ann Lee</span> two.</p>'
                 '<div class="captionless-layout"><p>Kept: no caption token here.</p></div>')
    assert out.text == "Prose one.\n\nProse two.\n\nKept: no caption token here."
    assert "A harbour at dawn" in out.html and "Photo: Ann Lee" in out.html
    assert "A harbour at dawn" in out.markdown and "span" not in out.html
    assert out.word_count == count_words(out.text)


def test_a_long_region_named_caption_is_not_a_caption() -> None:
    prose = "A sentence of the story that goes on. " * 60
    out = render(f'<div class="caption-layout"><p>{prose}</p></div>')
    assert out.text.startswith("A sentence of the story")


def test_controls_are_left_out_by_structure() -> None:
    panel = "The panel holds the story's own text, long enough to be content. " * 3
    out = render('<p>Story text.</p><div role="button">Hide caption</div>'
                 '<span aria-expanded="false" aria-controls="more">Expand</span>'
                 '<div onclick="toggle()">Show more</div><span tabindex="0">Next</span>'
                 '<p onclick="track()">A paragraph with a handler stays.</p>'
                 '<div tabindex="-1">A scroll target stays.</div>'
                 '<a href="/x" onclick="track()">A link stays</a>'
                 f'<div aria-expanded="true">{panel}</div>'
                 f'<div role="tablist"><div role="tab">{panel}</div></div>')
    assert out.text == ("Story text.\n\nA paragraph with a handler stays.\n\n"
                        f"A scroll target stays.\n\nA link stays\n\n{panel.strip()}"
                        f"\n\n{panel.strip()}")


def test_a_gallery_copy_of_a_figure_is_dropped() -> None:
    out = render('<figure><img src="a.jpg?w=300"><figcaption>Boats at dawn</figcaption></figure>'
                 '<p>Text between, the longer part of the story.</p>'
                 '<figure><img src="a.jpg?w=800"><figcaption>Boats at dawn</figcaption></figure>'
                 '<figure><img src="b.jpg"><figcaption>Boats at dusk</figcaption></figure>'
                 '<p class="caption">Boats at dusk</p>')
    assert out.images == ["https://example.com/news/a.jpg?w=300", "https://example.com/news/b.jpg"]
    assert out.html.count("<figure>") == 2
    assert out.html.count("Boats at dawn") == 1 and out.html.count("Boats at dusk") == 1
    assert out.text == "Text between, the longer part of the story."
    resized = render('<p><img src="/up/boat-300x200.jpg"></p><p>Story text.</p>'
                     '<p><img src="/up/boat.jpg"></p><p><img src="/up/boat-2.jpg"></p>')
    assert resized.images == ["https://example.com/up/boat-300x200.jpg",
                              "https://example.com/up/boat-2.jpg"]


# --- URLs and sanitizing -----------------------------------------------------------------------

def test_relative_urls_made_absolute() -> None:
    out = render('<p><a href="../about?q=1#top">About</a> <a href="//cdn.io/x">CDN</a> '
                 '<a href="mailto:me@example.com">mail</a></p>')
    assert out.html == ('<p><a href="https://example.com/about?q=1#top">About</a> '
                        '<a href="https://cdn.io/x">CDN</a> '
                        '<a href="mailto:me@example.com">mail</a></p>')


def test_without_base_url_relative_urls_stay() -> None:
    out = render('<p><a href="/x">x</a><img src="i.png"></p>', base_url=None)
    assert out.html == '<p><a href="/x">x</a><img src="i.png"></p>'


def test_javascript_links_and_handlers_removed() -> None:
    out = render('<p onclick="steal()"><a href="javascript:alert(1)">click</a> '
                 '<a href=" JaVa&#x09;Script:alert(1)">again</a> '
                 '<img src="x.jpg" onerror="steal()"><a href="data:text/html,x">d</a></p>'
                 "<script>evil()</script><style>p{}</style>")
    assert out.html == '<p>click again <img src="https://example.com/news/x.jpg">d</p>'
    assert "javascript" not in out.markdown.lower()
    assert safe_url("vbscript:x", BASE) is None


# --- title and text ----------------------------------------------------------------------------

def test_title_heading_dropped() -> None:
    out = render("<h1>  The  Big Story </h1><p>Body</p>", title="the big story")
    assert out.html == "<p>Body</p>"
    kept = render("<h1>Another headline</h1><p>Body</p>", title="The big story")
    assert kept.markdown == "# Another headline\n\nBody"
    styled = render("<div class='headline'>The big story</div><p>Body</p>", title="The big story")
    assert styled.html == "<p>Body</p>"
    later = render("<p>Body</p><p>The big story</p>", title="The big story")
    assert later.text == "Body\n\nThe big story"


def test_byline_line_dropped_when_shown_apart() -> None:
    html = "<p>By Jane Doe, Reuters</p><p>Jane Doe wrote this, and more.</p>"
    out = render_article(lxml.html.fragment_fromstring(html, create_parent="div"), BASE,
                         byline="Jane Doe")
    assert out.text == "Jane Doe wrote this, and more."
    kept = render_article(lxml.html.fragment_fromstring(html, create_parent="div"), BASE,
                          byline="John Roe")
    assert kept.text.startswith("By Jane Doe, Reuters")


def test_leading_datelines_repeating_the_header_are_dropped() -> None:
    prose = "The council voted on Tuesday to close the old bridge for repairs next spring."
    body = (f"<p>Updated 3:42 PM ET, Tue March 7, 2017</p><p>By Jane Doe | 12.03.2019</p>"
            f"<p>{prose}</p><p>Posted on March 8, 2017</p>")
    assert render(body, title="Bridge to close").text == f"{prose}\n\nPosted on March 8, 2017"
    assert render(body).text.startswith("Updated 3:42 PM ET")  # a post has no header
    only = "<p>by Jane Doe on May 3, 2012</p>"
    assert render(only, title="A title").text == "by Jane Doe on May 3, 2012"
    dated_prose = "On March 7, 2017 the council voted to close the old bridge for repairs."
    assert render(f"<p>{dated_prose}</p>", title="A title").text == dated_prose


def test_markdown_escapes_text() -> None:
    out = render("<p>1. not a list</p><p># not a heading *nor emphasis* [x](y) a_b _c_</p>")
    assert out.markdown == ("1\\. not a list\n\n"
                            "\\# not a heading \\*nor emphasis\\* \\[x\\](y) a_b \\_c\\_")


def test_link_and_image_markdown() -> None:
    out = render('<p>See <a href="/a b(1)">the <b>docs</b></a>.'
                 '<a href="/i"><img src="/i.png" alt="icon"></a></p>')
    assert out.markdown == ("See [the **docs**](<https://example.com/a%20b(1)>)."
                            "[![icon](https://example.com/i.png)](https://example.com/i)")


def test_cjk_word_count() -> None:
    assert count_words("中文字符 and English") == 6
    assert count_words("日本語のテキスト") == 8
    assert count_words("한국어 text — 12") == 5
    out = render("<p>人工智能</p><p>AI research</p>")
    assert out.word_count == 6


def test_content_root_kept_only_when_it_is_a_reader_block() -> None:
    pre = lxml.html.fragment_fromstring("<pre>a\n  b</pre>")
    pre.tail = "outside the content"
    assert render_article(pre, None).markdown == "```\na\n  b\n```"
    cell = lxml.html.fragment_fromstring("<td>one<p>two</p></td>")
    assert render_article(cell, None).html == "<p>one</p>\n<p>two</p>"


# --- hostile shapes ----------------------------------------------------------------------------

def _deep(tags: list[str], depth: int) -> lxml.html.HtmlElement:
    root = lxml.html.Element("div")
    node = root
    for level in range(depth):
        node = etree.SubElement(node, tags[level % len(tags)])
        node.text = f"w{level} "
    return root


@pytest.mark.parametrize("tags", [["div"], ["blockquote"], ["ul", "li"], ["span", "em"],
                                  ["table", "tr", "td"], ["pre"]])
def test_deep_nesting_does_not_recurse(tags: list[str]) -> None:
    out = render_article(_deep(tags, 5000), BASE)
    assert out.word_count == 5000
    assert out.text.split() == [f"w{level}" for level in range(5000)]


def test_hundred_thousand_siblings() -> None:
    root = lxml.html.Element("div")
    for index in range(100_000):
        etree.SubElement(root, "span").text = f"w{index} "
    out = render_article(root, BASE)
    assert out.word_count == 100_000
    assert out.html.count("<p>") == 1


# --- formulas ---------------------------------------------------------------------------------

def test_mathml_formula_kept_as_mathml_and_linear_text() -> None:
    out = render('<p>When <math display="inline"><mi> a </mi><mo>&#8800;</mo><mn>0</mn>'
                 "<semantics><annotation>a \\neq 0</annotation></semantics></math>, "
                 "there are two.</p>")
    assert out.html == ('<p>When <math display="inline"><mi>a</mi><mo>≠</mo><mn>0</mn>'
                        "<semantics></semantics></math>, there are two.</p>")
    assert out.text == "When a ≠ 0, there are two."
    assert out.markdown == "When a ≠ 0, there are two."


@pytest.mark.parametrize("payload", [
    '<math><mi onclick="alert(1)" href="javascript:alert(1)">x</mi></math>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph>"
    "</table></mtext></math>",
    '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction>'
    "<annotation-xml encoding='text/html'><img src=x onerror=alert(1)></annotation-xml></math>",
])
def test_mathml_carries_no_script(payload: str) -> None:
    html = render(f"<p>See {payload} here.</p>").html
    assert "onclick" not in html and "onerror" not in html and "javascript" not in html
    assert "<img" not in html and "<style" not in html and "<table" not in html


def test_deeply_nested_formula_renders_flat_below_the_depth_cap() -> None:
    depth = 200  # deeper than the cap, within what the fragment parser keeps
    out = render("<p><math>" + "<mrow>" * depth + "<mi>x</mi>" + "</mrow>" * depth
                 + "</math></p>")
    assert out.text == "x"
    assert out.html.count("<mrow>") < MAX_BLOCK_DEPTH


def test_an_element_without_hiding_or_control_attributes_is_not_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk asks whether an element is hidden, a control or a caption region only when
    it has an attribute those tests read: a class alone makes none of them but a caption."""
    import winnow.render as render_mod

    asked: list[str] = []
    for name in ("is_hidden", "is_control", "is_caption_region"):
        def counted(el: lxml.html.HtmlElement, name: str = name,
                    judge: object = getattr(render_mod, name)) -> bool:
            asked.append(name)
            return judge(el)  # type: ignore[operator, no-any-return]
        monkeypatch.setattr(render_mod, name, counted)
    out = render("<div class='body'><p lang='en'>One <a href='/x'>link</a> and"
                 " <span style='display:none'>gone</span>.</p></div>")
    assert out.text == "One link and ."
    assert asked == ["is_caption_region", "is_hidden"]
