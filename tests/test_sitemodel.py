"""Site template learning: clustering, template noise, persistence, the store and the CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import lxml.html
import pytest
from winnow import extract
from winnow.cli import main
from winnow.clustering import Clusterer
from winnow.layout import segment
from winnow.learning import Learner, summary
from winnow.page import parse_page
from winnow.sitemodel import MIN_CLUSTER_PAGES, SiteModel
from winnow.store import Store
from winnow.tree import build_tree

NAV = ('<div id="nav"><a href="/">Home</a> <a href="/news">News</a> '
       '<a href="/sport">Sport</a></div>')
FOOTER = ('<div id="legal"><p>Copyright, 2024. All rights reserved. The Daily Example is not '
          'responsible for the content of external sites, or for their privacy policies.</p>'
          '</div>')
PROMO = ('<div class="box"><p>Every weekday morning, we send readers a digest of the news. '
         'It is free, and you can stop it whenever you like.</p></div>')
def word(*seed: int) -> str:
    """A made-up word; different seeds give different words, as news text differs."""
    digest = hashlib.blake2b(repr(seed).encode(), digest_size=6).digest()
    return "".join(chr(ord("a") + b % 26) for b in digest)


def sentence(n: int, k: int) -> str:
    """A sentence whose words differ from page to page, as news text does."""
    words = [word(n, k, i) for i in range(12)]
    return f"{' '.join(words[:4])}, {' '.join(words[4:8])}, {' '.join(words[8:])}."


def news_page(n: int) -> str:
    """A page of the 'news' template: nav, story, a promo box and a footer with commas."""
    story = "".join(f"<p>{sentence(n, k)} {sentence(n, k + 10)}</p>" for k in range(1, 6))
    return (f"<html><head><title>Story {n}</title></head><body>{NAV}<div id='main'>"
            f"<h1>Story {n}</h1><div class='text'>{story}</div>{PROMO}</div>{FOOTER}"
            "</body></html>")


def gallery_page(n: int) -> str:
    """A page of another template: a table-based gallery layout."""
    rows = "".join(f"<tr><td><img src='/p{n}_{k}.jpg'></td><td><span>Photo {n}.{k}</span></td>"
                   f"<td><b>{k}</b></td></tr>" for k in range(12))
    return (f"<html><body><table id='g'><tbody>{rows}</tbody></table><ul>"
            + "".join(f"<li><em>tag {k}</em></li>" for k in range(8)) + "</ul></body></html>")


def learned(pages: list[str]) -> SiteModel:
    model = SiteModel("example.com")
    for html in pages:
        model.add_page(parse_page(html))
    return model


def test_pages_of_one_template_share_a_cluster_and_others_start_one() -> None:
    model = learned([news_page(n) for n in range(4)] + [gallery_page(n) for n in range(3)])
    sizes = sorted(c.pages for c in model.clusterer.clusters.values())
    assert sizes == [3, 4]


def test_clusterer_assign_does_not_learn() -> None:
    clusterer = Clusterer()
    page = parse_page(news_page(1))
    tree, signature = build_tree(page.body), segment(page).signature
    assert clusterer.assign(tree, signature).cluster is None
    first = clusterer.add(tree, signature)
    assert clusterer.assign(tree, signature).cluster == first.cluster
    assert clusterer.clusters[first.cluster].pages == 1


def test_a_page_and_one_learned_page_of_its_template_tell_its_template_text() -> None:
    html = news_page(9)
    single = extract(html)
    assert single.article is not None and "weekday morning" in single.article.text
    model = learned([news_page(1)])
    assert MIN_CLUSTER_PAGES == 1
    result = extract(html, None, model)
    assert result.method == "template+econ" and result.pages_learned == 1
    assert result.article is not None
    assert "weekday morning" not in result.article.text  # on both pages: template
    assert sentence(9, 1) in result.article.text and sentence(9, 5) in result.article.text


def test_a_page_visited_again_is_not_its_own_template() -> None:
    model = learned([news_page(1)])
    again = extract(news_page(1), None, model)
    assert again.method == "econ" and again.cluster is None  # no page besides itself
    model.add_page(parse_page(news_page(2)))
    again = extract(news_page(1), None, model)
    assert again.method == "template+econ" and again.article is not None
    assert sentence(1, 1) in again.article.text and sentence(1, 5) in again.article.text
    assert "weekday morning" not in again.article.text


def test_template_removes_boilerplate_that_single_page_extraction_keeps() -> None:
    html = news_page(9)
    single = extract(html)
    assert single.article is not None
    assert "weekday morning" in single.article.text  # the promo looks like prose on one page
    model = learned([news_page(n) for n in range(4)])
    result = extract(html, None, model)
    assert result.method == "template+econ"
    assert result.pages_learned == 4 and result.cluster is not None
    assert result.article is not None
    assert "weekday morning" not in result.article.text
    assert "Copyright" not in result.article.text
    assert sentence(9, 1) in result.article.text
    assert sentence(9, 5) in result.article.text


def test_template_noise_ids_come_back_for_pages_with_ids() -> None:
    model = learned([news_page(n) for n in range(4)])
    page = parse_page(news_page(9))
    for n, el in enumerate(page.root.iter()):
        el.set("data-wn", str(n))
    stamped = lxml.html.tostring(page.root, encoding="unicode")
    result = extract(stamped, None, model)
    assert result.noise_ids and result.content_ids
    assert not set(result.noise_ids) & set(result.content_ids)


def test_model_survives_json_round_trip() -> None:
    model = learned([news_page(n) for n in range(4)] + [gallery_page(n) for n in range(2)])
    again = SiteModel.from_json(json.loads(json.dumps(model.to_json())))
    for html in (news_page(7), gallery_page(7)):
        assert extract(html, None, again).to_dict() | {"timing_ms": {}} == \
            extract(html, None, model).to_dict() | {"timing_ms": {}}
    assert summary(again) == summary(model)


def test_cluster_representatives_hold_no_page_elements() -> None:
    """Representatives and ne-patterns keep a page's tree structure only, as their JSON does:
    keeping the lxml elements would keep every such page's whole DOM alive."""
    model = learned([news_page(n) for n in range(5)] + [gallery_page(n) for n in range(2)])
    trees = [t for c in model.clusterer.clusters.values() for t in c.representatives]
    trees += [m.pattern.tree for m in model.clusters.values() if m.pattern is not None]
    assert trees and all(t.elements is None and not any(t.texts) for t in trees)
    page_tree = build_tree(parse_page(news_page(9)).body)
    again = page_tree.structure()
    assert (again.tags, again.labels, again.hashes, again.tag_hashes) == \
        (page_tree.tags, page_tree.labels, page_tree.hashes, page_tree.tag_hashes)


def test_text_repeated_across_the_site_explains_a_page_of_a_young_cluster() -> None:
    model = learned([news_page(n) for n in range(3)])
    page = parse_page(gallery_page(1).replace("</body>", FOOTER + "</body>"))
    template = model.template(page)
    assert template is not None and template.cluster is None and template.pages_learned == 3
    assert template.sources["site"] > 0 and template.records is None
    noise = " ".join(el.text_content() for el in template.noise)
    assert "All rights reserved" in noise and "Photo" not in noise
    assert model.template(parse_page(gallery_page(2))) is None


def test_a_page_of_no_mature_cluster_borrows_the_nearest_matching_template() -> None:
    model = learned([news_page(n) for n in range(4)])
    seen = model.observe(parse_page(news_page(9)))
    seen.matches = []  # as if RTDM had found it too far from every cluster
    sources = model.noise_sources(seen)
    assert sources["layout"] and sources["chunks"]
    template = model.template(seen)
    assert template is not None and template.records is None
    assert template.cluster in model.clusters and template.pages_learned == 4
    gallery = model.observe(parse_page(gallery_page(1)))
    assert set(model.noise_sources(gallery)) == {"site"}


def test_version_1_model_is_read_with_an_empty_site_table() -> None:
    model = learned([news_page(n) for n in range(4)])
    data = model.to_json()
    data["version"] = 1
    del data["site_chunks"]
    old = SiteModel.from_json(data)
    assert old.site_chunks.pages == 0 and summary(old) == summary(model)
    assert old.template(parse_page(news_page(9))) is not None


def test_unknown_format_version_is_refused() -> None:
    data = learned([news_page(1)]).to_json()
    data["version"] = 999
    with pytest.raises(ValueError, match="format"):
        SiteModel.from_json(data)


def test_learner_persists_across_a_restart(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        for n in range(4):
            learner.learn("example.com", news_page(n), f"https://example.com/{n}")
        learner.save()
        before = learner.extract("example.com", news_page(8), None).to_dict()
    with Store.open(tmp_path) as store:
        after = Learner(store).extract("example.com", news_page(8), None).to_dict()
        assert store.count_pages("example.com") == 4
    before["timing_ms"] = after["timing_ms"] = {}
    assert after == before
    assert after["method"] == "template+econ"


def write_pages(folder: Path, pages: list[str]) -> list[str]:
    paths = []
    for n, html in enumerate(pages):
        path = folder / f"page{n:02d}.html"
        path.write_text(html, encoding="utf-8")
        paths.append(str(path))
    return paths


def test_cli_extract_learn_processes_pages_in_browsing_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = write_pages(tmp_path, [news_page(n) for n in range(4)])
    data = tmp_path / "data"
    assert main(["extract", "--learn", "--data-dir", str(data), "--site", "example.com",
                 "--format", "jsonl", *paths]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["pages_learned"] for line in lines] == [0, 1, 2, 3]
    assert [line["method"] for line in lines] == ["econ", "template+econ", "template+econ",
                                                 "template+econ"]
    assert main(["sites", "--data-dir", str(data)]) == 0
    listing = capsys.readouterr().out
    assert "example.com" in listing and "4 pages stored" in listing
    assert "learned 4 pages" in listing and "cluster sizes [4]" in listing


def test_cli_learn_then_extract_uses_the_stored_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = write_pages(tmp_path, [news_page(n) for n in range(3)])
    data = tmp_path / "data"
    assert main(["learn", "--data-dir", str(data), "--site", "www.example.com", *paths]) == 0
    assert "3/3" in capsys.readouterr().err
    target = write_pages(tmp_path / "..", [news_page(5)])
    assert main(["extract", "--learn", "--data-dir", str(data), "--site", "example.com",
                 "--format", "jsonl", *target]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["method"] == "template+econ" and line["pages_learned"] == 3


def test_cli_learn_without_a_site_reports_the_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = write_pages(tmp_path, [news_page(1)])
    assert main(["extract", "--learn", "--data-dir", str(tmp_path / "d"), "--format",
                 "jsonl", *paths]) == 1
    line = json.loads(capsys.readouterr().out)
    assert line["path"] == paths[0] and "--site" in line["error"]


def test_passages_give_the_ne_pattern_extraction() -> None:
    """The cluster's ne-pattern (RTDM 4.3-4.4) extracts the varying passages of a page of
    its template; the story's paragraphs are among them and the navigation is not."""
    model = learned([news_page(n) for n in range(4)])
    found = model.passages(parse_page(news_page(9)))
    assert found is not None
    text = " ".join(passage.text for passage in found.passages)
    assert sentence(9, 3) in text
    assert "Home" not in text
    assert learned([news_page(1)]).passages(parse_page(gallery_page(1))) is None


def test_unreadable_stored_model_is_relearned(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    with Store.open(tmp_path) as store:
        store.save_model("example.com", "site_model", {"version": 1, "site": "x"}, 1)
        learner = Learner(store)
        model = learner.model("example.com")
        assert model.pages_seen == 0 and model.site == "example.com"
    assert "unreadable" in caplog.text


@pytest.mark.parametrize(("key", "votes"), [
    ("leads", None), ("leads", ["not", "votes"]), ("leads", {"counts": [["path", "many", 1]]}),
    ("leads", {"counts": [], "pages": "many"}),
    ("content", None), ("content", ["not", "votes"]), ("content", {"pages": "many"}),
    ("content", {"pages": 4, "counts": [[["div[0]"], "many"]]})])
def test_stored_model_with_malformed_votes_is_relearned(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, key: str, votes: object) -> None:
    """A cluster's lead or content votes in any shape but their own make the model unreadable,
    relearned from nothing; None stands for a model from before they were kept, which loads
    with its pages."""
    with Store.open(tmp_path) as store:
        model = Learner(store).model("example.com")
        for n in range(4):
            model.add_page(parse_page(news_page(n)))
        data = model.to_json()
        assert data["clusters"]
        for cluster in data["clusters"].values():
            assert key in cluster
            cluster[key] = votes
        store.save_model("example.com", "site_model", data, data["version"])
        loaded = Learner(store).model("example.com")
        assert loaded.pages_seen == (4 if votes is None else 0)
    assert ("unreadable" in caplog.text) == (votes is not None)


def test_cli_with_a_data_dir_that_is_a_file_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x", encoding="utf-8")
    assert main(["sites", "--data-dir", str(not_a_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("winnow: cannot use ") and "data directory" in err


def test_a_revisited_page_is_not_learned_again() -> None:
    model = SiteModel("example.com")
    url = "https://example.com/story/1"
    for _ in range(3):
        model.add_page(parse_page(news_page(1), url))
    model.add_page(parse_page(news_page(1), url + "?utm_source=feed"))
    assert model.pages_seen == 1
    model.add_page(parse_page(news_page(2), "https://example.com/story/2"))
    result = extract(news_page(1), url, model)
    assert result.method == "template+econ" and result.pages_learned == 2
    assert result.article is not None
    assert sentence(1, 1) in result.article.text


def test_learned_pages_survive_json_round_trip() -> None:
    model = SiteModel("example.com")
    model.add_page(parse_page(news_page(1), "https://example.com/1"))
    again = SiteModel.from_json(json.loads(json.dumps(model.to_json())))
    again.add_page(parse_page(news_page(1), "https://example.com/1"))
    assert again.pages_seen == 1


def test_a_page_the_nearest_layout_pattern_does_not_match_borrows_its_template_text() -> None:
    """A variant of a template (RTDM and the layout pattern set it apart) still carries the
    template's boxes: the text it holds at the same tag path as the near cluster's learned
    page is template text, and nothing else of that cluster's template is lent."""
    model = learned([news_page(0)])
    variant = news_page(9).replace("<div class='text'>", "<div class='video'><p>Watch the "
                                   "clip.</p></div><div class='text'>")
    seen = model.observe(parse_page(variant))
    seen.matches = []  # as if RTDM had found it too far from every cluster
    sources = model.noise_sources(seen)
    assert set(sources) == {"chunks", "site"} and sources["chunks"]
    template = model.template(seen)
    assert template is not None and template.cluster in model.clusters
    noise = " ".join(el.text_content() for el in template.noise)
    assert "digest of the news" in noise and "All rights reserved" in noise
    assert sentence(9, 1) not in noise and "Watch the clip" not in noise
    assert model.template(parse_page(gallery_page(1))) is None
