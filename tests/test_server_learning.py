"""`Learner` as the server's workers use it: visit (extract, store when collected), then
learn; the model cache is bounded; forgetting a site drops its model and pages."""

from __future__ import annotations

import shutil
from pathlib import Path

from server_helpers import article_page
from winnow.learning import MODEL_KIND, Learner
from winnow.store import Store

SITE = "planet.example"


def url(n: int) -> str:
    return f"https://{SITE}/news/{n}.html"


def test_visit_stores_before_learning_and_the_next_page_benefits(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        methods = []
        for n in range(4):
            visit = learner.visit(SITE, article_page(n), url(n), url(n))
            assert visit.page_id is not None and store.get_page(visit.page_id) is not None
            assert store.get_page(visit.page_id).cluster is None  # type: ignore[union-attr]
            methods.append(visit.result.method)
            learned = learner.learn_visit(visit)
            assert store.get_page(visit.page_id).cluster == learned.cluster  # type: ignore[union-attr]
        assert methods == ["econ", "template+econ", "template+econ", "template+econ"]
        assert {"parse", "template", "total"} <= set(visit.result.timing_ms)
        assert visit.model_state(learner.model(SITE))["pages"] == 4


def test_uncollected_visits_are_learned_not_stored(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        for n in range(3):
            visit = learner.visit(SITE, article_page(n), url(n), url(n), collect=False)
            assert visit.page_id is None
            learner.learn_visit(visit)
        assert store.count_pages() == 0 and learner.model(SITE).pages_seen == 3
        assert learner.save() == 1
        assert store.model_summaries(MODEL_KIND)[SITE][0]["pages"] == 3


def test_model_cache_is_bounded_and_evicted_models_are_saved(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        learner = Learner(store, max_models=2)
        for k in range(3):
            site = f"site{k}.example"
            for n in range(2):
                learner.learn_visit(learner.visit(site, article_page(n), url(n), url(n)))
        assert list(learner.models) == ["site1.example", "site2.example"]
        assert store.load_model("site0.example", MODEL_KIND) is not None  # saved on eviction
        assert learner.model("site0.example").pages_seen == 2  # and loaded back
        assert len(learner.models) == 2


def test_forget_drops_the_model_and_the_pages(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        learner = Learner(store)
        for n in range(2):
            learner.learn_visit(learner.visit(SITE, article_page(n), url(n), url(n)))
        learner.save()
        assert learner.forget(SITE) == 2
        assert SITE not in learner.models and store.load_model(SITE, MODEL_KIND) is None
        assert learner.model(SITE).pages_seen == 0


def test_an_evicted_model_learns_on_as_if_it_had_stayed_in_memory(tmp_path: Path) -> None:
    """The layout windows are never saved; the learner keeps them across an eviction."""
    sites = ["a.example", "b.example"]
    Store.open(tmp_path / "one").close()
    (tmp_path / "two").mkdir()
    shutil.copy(tmp_path / "one" / "secret", tmp_path / "two" / "secret")  # same digests
    with Store.open(tmp_path / "one") as store, Store.open(tmp_path / "two") as other:
        evicting, keeping = Learner(store, max_models=1), Learner(other, max_models=2)
        for n in range(6):
            for site in sites:  # each visit evicts the other site's model
                for learner in (evicting, keeping):
                    learner.learn_visit(learner.visit(site, article_page(n), url(n), url(n),
                                                      collect=False))
        assert list(evicting.memories) == ["a.example"]
        for site in sites:
            assert evicting.model(site).to_json() == keeping.model(site).to_json()
