"""`parse_page`'s cleaning: non-content elements go, the text around them stays as it reads."""

from __future__ import annotations

from winnow.page import parse_page
from winnow.renderinput import pre_text


def test_dropped_elements_keep_their_tails_joined() -> None:
    page = parse_page("<html><body><p id='a'>one <script>var x = 1;</script>two"
                      "<button>Copy</button> three<!-- note --> four</p></body></html>")
    para = page.root.find(".//p")
    assert para is not None
    assert para.text == "one two three four"
    assert para.text_content() == "one two three four"
    assert list(para.itertext()) == ["one two three four"]
    assert page.root.find(".//script") is None and page.root.find(".//button") is None


def test_tail_after_dropped_element_joins_the_previous_tail() -> None:
    page = parse_page("<html><body><p>a<b>bold</b>, then<svg><text>x</text></svg> more"
                      "<i>it</i></p></body></html>")
    bold = page.root.find(".//b")
    assert bold is not None and bold.tail == ", then more"


def test_code_block_reads_across_a_dropped_copy_button() -> None:
    page = parse_page("<html><body><pre>ls -l<button>Copy</button>\ncd /tmp</pre></body></html>")
    pre = page.root.find(".//pre")
    assert pre is not None and pre_text(pre) == "ls -l\ncd /tmp"


def test_address_fields_are_read_before_the_inputs_go() -> None:
    page = parse_page("<html><body><form><div id='mail'><input type='email'></div>"
                      "<div id='q'><input type='text' name='q'></div>"
                      "<p id='both'><input name='email'><input placeholder='E-Mail'></p>"
                      "</form></body></html>")
    assert [el.get("id") for el in page.address_fields] == ["mail", "both"]
    assert page.root.find(".//input") is None
