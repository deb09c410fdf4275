"""Unit tests of the article metric, the HTML-to-text rendering and the corpus helpers."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from helpers import require_corpus
from winnow import evaluation as ev
from winnow.evaluation import forum_cases, score_posts
from winnow.result import Post


def test_tokenize_is_unicode_and_case_sensitive() -> None:
    assert ev.tokenize("Naïve café, 日本語 — x2!") == ["Naïve", "café", "日本語", "x2"]
    assert ev.tokenize("Word word") == ["Word", "word"]
    assert ev.tokenize("") == []


def test_shingles_are_a_multiset_of_four_tokens() -> None:
    assert ev.shingles("a b c d a b c d") == {
        ("a", "b", "c", "d"): 2, ("b", "c", "d", "a"): 1,
        ("c", "d", "a", "b"): 1, ("d", "a", "b", "c"): 1,
    }


def test_short_text_is_one_shorter_shingle() -> None:
    assert ev.shingles("hello world") == {("hello", "world"): 1}
    assert ev.shingles("...") == {}


def test_identical_texts_score_one() -> None:
    counts = ev.page_counts("The quick brown fox jumps", "The quick brown fox jumps")
    assert counts == (1.0, 0.0, 0.0)
    assert ev.aggregate([counts]) == ev.Score(precision=1.0, recall=1.0, f1=1.0, pages=1)


def test_disjoint_texts_score_zero() -> None:
    counts = ev.page_counts("one two three four five", "six seven eight nine ten")
    assert counts == (0.0, 0.5, 0.5)
    assert ev.precision(counts) == ev.recall(counts) == 0.0
    assert ev.aggregate([counts]).f1 == 0.0


def test_partial_overlap_by_hand() -> None:
    # gold shingles: abcd, bcde; predicted: abcd, bcdx -> tp 1, fp 1, fn 1.
    counts = ev.page_counts("a b c d e", "a b c d x")
    assert counts == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert ev.precision(counts) == pytest.approx(0.5)
    assert ev.recall(counts) == pytest.approx(0.5)


def test_extra_text_costs_precision_only() -> None:
    # gold: abcd; predicted: abcd, bcde, cdef -> tp 1, fp 2.
    counts = ev.page_counts("a b c d", "a b c d e f")
    assert ev.precision(counts) == pytest.approx(1 / 3)
    assert ev.recall(counts) == 1.0


def test_short_texts_compare_as_whole() -> None:
    assert ev.page_counts("hello world", "hello world") == (1.0, 0.0, 0.0)
    assert ev.page_counts("hello", "hello world") == (0.0, 0.5, 0.5)


def test_tokens_not_markup_decide() -> None:
    assert ev.page_counts("one, two; three four!", "one two\nthree   four") == (1.0, 0.0, 0.0)
    assert ev.page_counts("Alpha beta gamma delta", "alpha beta gamma delta")[0] == 0.0


def test_empty_prediction_costs_only_recall() -> None:
    missed = ev.page_counts("one two three four", "")
    assert missed == (0.0, 0.0, 1.0)
    score = ev.aggregate([ev.page_counts("a b c d", "a b c d"), missed])
    assert score.precision == 1.0  # the empty page is left out of the precision average
    assert score.recall == pytest.approx(0.5)
    assert score.f1 == pytest.approx(2 / 3)


def test_both_empty_counts_nowhere() -> None:
    assert ev.page_counts("", "") == (0.0, 0.0, 0.0)
    assert ev.aggregate([ev.page_counts("", "")]) == ev.Score(0.0, 0.0, 0.0, 1)
    assert ev.aggregate([]).f1 == 0.0


def test_html_to_text_separates_blocks() -> None:
    html = ("<div><h1>Title</h1><p>Hello <b>wor</b>ld</p><p>next</p><ul><li>a</li><li>b</li>"
            "</ul>x<br>y<script>var s;</script><table><tr><td>c1</td><td>c2</td></tr></table>"
            "<pre>keep\n  code</pre></div>")
    assert ev.html_to_text(html) == "Title\nHello world\nnext\na\nb\nx\ny\nc1\nc2\nkeep\ncode"
    assert ev.html_to_text("") == ""
    figure = "<p>Prose.</p><figure><img src=a.jpg><figcaption>A caption</figcaption></figure>"
    assert ev.html_to_text(figure) == "Prose.\nA caption"
    assert ev.html_to_text(figure, without=ev.CAPTION_TAGS) == "Prose."


def test_split_dragnet_gold_keeps_comments_apart() -> None:
    text = "Article body.\n!@#$%^&*()  COMMENTS\nFirst comment.\n"
    assert ev.split_dragnet_gold(text) == ("Article body.\n", "\nFirst comment.\n")
    assert ev.split_dragnet_gold("!@#$%^&*() COMMENTS")[1] == ""
    assert ev.split_dragnet_gold("No comments here.") == ("No comments here.", None)


@pytest.mark.parametrize("data", [
    codecs.BOM_UTF16_LE + "café\r\n".encode("utf-16-le"),
    "café\n".encode(),
    "café\r".encode("cp1252"),
])
def test_read_text_decodes_gold_files(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "gold.txt"
    path.write_bytes(data)
    assert ev.read_text(path) == "café\n"


def test_corpus_fingerprint_sees_changed_files(tmp_path: Path) -> None:
    page = tmp_path / "articles" / "sites" / "page.html"
    page.parent.mkdir(parents=True)
    page.write_text("<p>one</p>")
    before = ev.corpus_fingerprint(["sites"], tmp_path)
    assert ev.corpus_fingerprint(["sites"], tmp_path) == before
    page.write_text("<p>one two</p>")
    assert ev.corpus_fingerprint(["sites"], tmp_path) != before


# --- forum post scoring -------------------------------------------------------------------------

def _posts(*texts: str, author: str | None = None) -> list[Post]:
    return [Post(text=text, author=author, published="2020-01-01" if author else None)
            for text in texts]


def test_posts_match_by_the_first_30_non_space_characters() -> None:
    gold = [{"text_start": "Hello there, this is the first post of the thread", "author": "Ann"},
            {"text_start": "", "author": "Bob"}]
    extracted = _posts("Hello  there,\nthis is the first post of the thread and more", "",
                       author=" ann ")
    score = score_posts(extracted, gold)
    assert (score.found, score.perfect, score.author_correct, score.date_parsed) == (2, 1, 1, 2)


def test_each_extracted_post_matches_one_gold_post_only() -> None:
    gold = [{"text_start": "Same start of a post that repeats itself"}] * 2
    score = score_posts(_posts("Same start of a post that repeats itself"), gold)
    assert (score.found, score.precision, score.recall, score.perfect) == (1, 1.0, 0.5, 0)


def test_extra_posts_cost_precision_and_perfection() -> None:
    gold = [{"text_start": "A post"}]
    score = score_posts(_posts("A post", "An ad that looks like a post"), gold)
    assert (score.precision, score.recall, score.perfect) == (0.5, 1.0, 0)
    total = score + score_posts(_posts("A post"), gold)
    assert (total.pages, total.perfect, total.found, total.extracted) == (2, 1, 2, 3)


def test_forum_cases_load_the_truth() -> None:
    require_corpus("forums")
    cases = forum_cases()
    assert len(cases) == 77
    assert sum(len(case.posts) for case in cases) == 1229


def test_segmentation_rule_credits_records_that_keep_their_header() -> None:
    gold = [{"text_start": "The body of the post starts here"}]
    extracted = _posts("ann 3 hours ago The body of the post starts here")
    assert score_posts(extracted, gold).found == 0
    assert score_posts(extracted, gold, contains=True).found == 1


def test_word_f1_is_wcxbs_bag_of_lowercased_words() -> None:
    p, r, f = ev.word_f1("The cat sat on the mat", "the CAT sat")
    assert (p, r) == (1.0, 0.5)
    assert abs(f - 2 / 3) < 1e-9
    assert ev.word_f1("some gold", "") == (0.0, 0.0, 0.0)
    assert ev.word_f1("", "") == (1.0, 1.0, 1.0)


def test_snippet_rates_count_found_and_leaked_snippets() -> None:
    found, leaked = ev.snippet_rates("Hello   World. Sign in", ["hello world", "absent one"],
                                     ["Sign In", "Cookie policy"])
    assert (found, leaked) == (0.5, 0.5)
    assert ev.snippet_rates("text", [], []) == (None, None)


def test_split_is_by_domain_stable_and_about_a_third_check() -> None:
    domains = [f"site{i}.example" for i in range(3000)]
    parts = [ev.split_of(d) for d in domains]
    assert set(parts) == {"tune", "check"}
    assert 0.28 < parts.count("check") / len(parts) < 0.39
    assert ev.split_of("www.Example.com") == ev.split_of("example.com")
    assert ev.url_domain("https://www.news.example.org:8080/a?b") == "news.example.org"


def test_word_aggregate_averages_page_scores_and_sets_pick_their_metric() -> None:
    score = ev.word_aggregate([(1.0, 0.5, 2 / 3), (0.0, 0.0, 0.0)])
    assert (score.precision, score.recall, score.pages) == (0.5, 0.25, 2)
    assert abs(score.f1 - 1 / 3) < 1e-9
    assert ev.set_metric("wcxb") == "word" and ev.set_metric("dragnet") == "shingle"
    pairs = [("one two three four five", "one two three four five six")]
    assert ev.score_texts("wcxb", pairs).f1 == ev.word_aggregate(
        [ev.word_f1(*pairs[0])]).f1
    assert ev.score_texts("sites", pairs).f1 == ev.aggregate(
        [ev.page_counts(*pairs[0])]).f1


def test_content_text_is_article_then_posts_then_main_text() -> None:
    from winnow.result import Article, Extraction, Post

    article = Extraction(kind="article", article=Article(text="The body."),
                         posts=[Post(text="ignored")])
    assert ev.content_text(article) == "The body."
    thread = Extraction(kind="thread", posts=[Post(author="ann", date="3 May", text="Hi."),
                                              Post(author=None, date=None, text="Yes.")])
    assert ev.content_text(thread) == "ann\n3 May\nHi.\n\nYes."
    assert ev.content_text(Extraction(kind="other")) == ""
