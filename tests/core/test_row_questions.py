"""Questions about one row, asked the way people ask (issue 64; issue 55's and 63's bullets on the same code).

The rules without a model first (the demo's product table typed and indexed as a build does, read with the csv
module), then the real engine over the demo (``biny demo``'s space, the bundled model, no language model): the
issue's four examples, asked with the structured index and without it.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from biny.core.answer import rows
from biny.core.answer.compose import ComposeSettings, compose
from biny.core.demo import build_demo
from biny.core.engine import Engine
from biny.core.results import Hit
from biny.core.structured.naming import NameMatcher
from biny.core.structured.propose import DocText, headers, propose, row_values, select
from biny.core.structured.route import Router
from biny.core.structured.tools import build_table, run
from biny.core.text.question import Question
from tests.conftest import ROOT, corpus

SENSORS = ROOT / "resources" / "demo" / "sensors.csv"


def _table(path: Path, limit: int = 400) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [r for _, r in zip(range(limit), csv.DictReader(fh), strict=False)]


def _passage(row: dict[str, str]) -> str:
    return "\n".join(f"{k}: {' '.join(v.split())}" for k, v in row.items() if v.strip())


def _router(path: Path, exact: list[str] | None = None, limit: int = 400) -> tuple[Router, object]:
    docs = [DocText(f"d{i}", 1, "", _passage(r)) for i, r in enumerate(_table(path, limit))]
    spec = select(propose(docs), None, exact)
    table = build_table(spec, [(h.doc_id, 1, h.title, row_values(h, spec)) for h in headers(docs)])
    return Router(spec, table), table


@pytest.fixture(scope="module")
def demo_router() -> tuple[Router, object]:
    return _router(SENSORS, ["SKU", "Product Url"])


def _lookup(router_table: tuple[Router, object], question: str) -> tuple[str | None, str | None, object]:
    """(row title, field, value) the router looks up, or Nones."""
    router, table = router_table
    routed = router.route(question)
    if routed.call is None or routed.call.tool != "lookup":
        return None, None, routed
    result = run(table, router.spec, routed.call)  # type: ignore[arg-type]
    return result.rows[0]["title"], routed.call.field, result.result


# ---- naming a row -----------------------------------------------------------------------------------------------
NAMES = [r["Product Name"] for r in _table(SENSORS)]


def test_a_row_is_named_by_its_distinctive_words_weighted_by_rarity() -> None:
    m = NameMatcher(NAMES)
    named = m.read("What is the price of the Leak Puck?").named
    assert named is not None and NAMES[named.row] == "Tallow Leak Puck"
    # The brand every row carries weighs nothing: "Tallow" names no row ("Tallow Motion" would be half-covered by it).
    assert m.weight["tallow"] < 0.05 < m.weight["puck"]
    reading = m.read("What is the price of the Tallow Smoke Alarm?")
    assert reading.named is None and reading.brand and reading.unknown == "Tallow Smoke Alarm"


def test_case_hyphens_spacing_and_one_wrong_letter_still_name_the_row() -> None:
    m = NameMatcher(NAMES)
    for question, want in (("how much is the leak-puck", "Tallow Leak Puck"), ("leakpuck price", "Tallow Leak Puck"),
                           ("Price of the Glas Break?", "Tallow Glass Break"),
                           ("How much is the Gatway Outdoor?", "Tallow Gateway Outdoor"),
                           ("When did the Thermo Prob come out?", "Tallow Thermo Probe")):
        named = m.read(question).named
        assert named is not None and NAMES[named.row] == want, question
    assert ("gatway", "gateway") in (m.read("How much is the Gatway Outdoor?").named or NAMES).misspelt  # type: ignore


def test_of_two_rows_matched_alike_the_closer_is_named_and_the_other_beside_it() -> None:
    m = NameMatcher(NAMES)
    named = m.read("How much is the Motion?").named
    assert named is not None and NAMES[named.row] == "Tallow Motion"
    assert [NAMES[i] for i in named.others] == ["Tallow Motion Outdoor"]
    named = m.read("What does the outdoor motion cost?").named
    assert named is not None and NAMES[named.row] == "Tallow Motion Outdoor"


def test_rows_named_alike_without_a_whole_name_are_asked_which(demo_router: tuple[Router, object]) -> None:
    router, _ = demo_router
    for question in ("What is the price of the Probe?", "Probe 多少钱？"):
        routed = router.route(question)
        assert routed.call is None and routed.refusal is not None and routed.refusal.kind == "which", question
        assert set(routed.refusal.closest.split(" / ")) == {"Tallow Thermo Probe", "Tallow Freezer Probe"}


def test_a_kind_word_or_the_first_word_beside_a_name_is_no_unknown_word() -> None:
    m = NameMatcher(NAMES)
    for question in ("Was kostet der Leak Puck Sensor?", "Regarding Leak Puck, what is the price?",
                     "how much is the new leak puck"):
        named = m.read(question).named
        assert named is not None and NAMES[named.row] == "Tallow Leak Puck", question


def test_a_names_qualifier_alone_names_no_row() -> None:
    """"The Nintendo Switch" is not "Yoshi's Crafted World - Nintendo Switch": a platform or edition after a dash."""
    m = NameMatcher(["Yoshi's Crafted World - Nintendo Switch", "Mario Kart 8 Deluxe", "Dragon Ball Fighterz - PS4",
                     "Peppa Pig Shape Sorter Clock Puzzle (12Piece)"])
    assert m.read("How much is the Nintendo Switch?").named is None
    named = m.read("How much is Yoshi's Crafted World?").named
    assert named is not None and named.row == 0


def test_an_unknown_word_in_the_names_place_names_no_row() -> None:
    """Issue 55: "the temperature probe" is not the Thermo Probe (the handbook's TP-10 is another product)."""
    m = NameMatcher(NAMES)
    assert m.read("How long does the battery of the temperature probe last?").named is None
    assert m.read("What does the Tallow Leak Pipe cost?").named is None


# ---- the asked field, by meaning, in four languages ------------------------------------------------------------
@pytest.mark.parametrize(("question", "row", "field", "value"), [
    ("What is the price of the Leak Puck?", "Tallow Leak Puck", "Price", "$24.00"),
    ("How much is the Air Mini?", "Tallow Air Mini", "Price", "$39.00"),
    ("How long does the battery of the Door Contact last?", "Tallow Door Contact", "Battery life (months)", "48"),
    ("When did the Glass Break come out?", "Tallow Glass Break", "Released", "2022"),
    ("How far does the Gateway Home reach?", "Tallow Gateway Home", "Range (m)", "300"),
    ("What's the article number of the Air Pro?", "Tallow Air Pro", "SKU", "TA-200"),
    ("Leak Puck 多少钱？", "Tallow Leak Puck", "Price", "$24.00"),
    ("Door Contact 的电池能用多久？", "Tallow Door Contact", "Battery life (months)", "48"),
    ("Glass Break 是什么时候上市的？", "Tallow Glass Break", "Released", "2022"),
    ("Was kostet der Leak Puck?", "Tallow Leak Puck", "Price", "$24.00"),
    ("Wie lange hält der Akku des Door Contact?", "Tallow Door Contact", "Battery life (months)", "48"),
    ("Welche Reichweite hat der Motion Outdoor?", "Tallow Motion Outdoor", "Range (m)", "120"),
    ("Leak Puckの値段は？", "Tallow Leak Puck", "Price", "$24.00"),
    ("Door Contactの電池はどのくらい持ちますか？", "Tallow Door Contact", "Battery life (months)", "48"),
    ("Soil Moistureの品番は？", "Tallow Soil Moisture", "SKU", "TS-2"),
])
def test_the_field_is_recognised_by_its_meaning_in_four_languages(demo_router: tuple[Router, object], question: str,
                                                                   row: str, field: str, value: str) -> None:
    assert _lookup(demo_router, question) == (row, field, value)


def test_a_field_the_table_lacks_is_refused_for_the_named_row(demo_router: tuple[Router, object]) -> None:
    router, _ = demo_router
    for question, asked in (("What is the weight of the Leak Puck?", "weight"), ("Glass Break是什么颜色？", "颜色"),
                            ("Wie schwer ist der Leak Puck?", "wie schwer"), ("Leak Puckの重さは？", "重さ")):
        routed = router.route(question)
        assert routed.call is None and routed.refusal is not None, question
        assert (routed.refusal.kind, routed.refusal.asked) == ("field", asked)


def test_a_prose_question_is_not_routed(demo_router: tuple[Router, object]) -> None:
    """Issue 55: the index answers only a question naming its field or value: "last" is no "latest" here."""
    router, _ = demo_router
    routed = router.route("How long does the battery of the temperature probe last?")
    assert routed.call is None and routed.refusal is None
    assert router.route("Which product was released last?").call is not None  # a which-question still ranks


@pytest.mark.parametrize("question", [
    "Team plan price if I pay for a whole year?",
    "I bought the yearly plan two weeks ago and changed my mind — can I get my money back?",
    "Geht der Hub auch ohne Internet?",  # German capitalises every noun: "Hub", "Internet" are no row's name
    "逾期付款要付多少滞纳金或利息？",  # 付款 is a payment, not a count of items (款)
])
def test_a_question_that_asks_the_index_nothing_says_nothing_of_its_values(demo_router: tuple[Router, object],
                                                                            question: str) -> None:
    """Issue 55: a refusal said "The index looked for “I” among the values of Category, Product Name": a pronoun,
    a German noun or a word holding a measure word is no value asked of the index."""
    router, _ = demo_router
    routed = router.route(question)
    assert routed.call is None and routed.looked_for == "" and routed.looked_in == [], routed


def test_a_pronoun_is_no_name_and_a_capital_umlaut_starts_one(demo_router: tuple[Router, object]) -> None:
    router, table = demo_router
    # "I" once made this a name no field holds, so the price filter went unasked.
    routed = router.route("Which sensors can I buy for under $30?")
    assert routed.call is not None and routed.call.tool == "filter", routed
    assert {r["title"] for r in run(table, router.spec, routed.call).rows} >= {"Tallow Leak Puck"}  # type: ignore[arg-type]
    # The name is the whole word, not its letters before the umlaut ("T").
    names = router.reader.unexplained_names("Welche Batterie braucht der Türkontakt DC-4?", [])
    assert "Türkontakt DC-4" in names and "T" not in names, names
    counted = router.route("一共有几款？")  # the measure word after a count still counts the rows
    assert counted.call is not None and counted.call.tool == "count", counted


def test_a_curators_synonym_names_its_field(demo_router: tuple[Router, object]) -> None:
    router, table = _router(SENSORS, ["SKU", "Product Url"])
    assert router.route("Wie lange ist die Standzeit des Door Contact?").call is None
    router.vocabulary.add_synonyms("Battery life (months)", ["Standzeit"])
    assert _lookup((router, table), "Wie lange ist die Standzeit des Door Contact?")[:2] == (
        "Tallow Door Contact", "Battery life (months)")


# ---- row passages in the extractive answer (index off, or the question went to retrieval) ----------------------
def _hits(texts: list[str], titles: list[str]) -> list[Hit]:
    return [Hit(f"c{i}", f"d{i}", title, "rows.csv", text, 0.3, None, False, None, i, [], 0, len(text))
            for i, (text, title) in enumerate(zip(texts, titles, strict=True))]


def test_a_row_passage_answers_with_the_asked_line_never_a_url() -> None:
    table = _table(SENSORS)
    by_name = {r["Product Name"]: r for r in table}
    texts = [_passage(by_name[n]) for n in ("Tallow Gateway Pro", "Tallow Leak Puck", "Tallow Glass Break")]
    pick = rows.pick("What is the price of the Leak Puck?", texts)
    assert pick.lines == [(2, "Price: $24.00")]
    assert rows.pick("When did the Glass Break come out?", texts).lines == [(3, "Released: 2022")]
    assert rows.pick("What is the link of the Leak Puck?", texts).lines == [
        (2, "Product Url: https://tallow.example/p/tl-10")]
    # Named, no field asked: the row stays in the context without its link line; the other rows leave it.
    pick = rows.pick("Tell me about the Leak Puck", texts)
    assert pick.lines is None and pick.passages[0] == "" and "Product Url" not in pick.passages[1]


def test_a_few_found_rows_are_named_with_their_own_rarity() -> None:
    """Among five rows found, "gateway" in three is no brand; the one they all open with is; the title written
    whole wins over one whose head is its last word; a kana keeps its voicing mark (「カテゴリ」)."""
    table = {r["Product Name"]: r for r in _table(SENSORS)}
    found = [_passage(table[n]) for n in ("Tallow Gateway Pro", "Tallow Gateway Outdoor", "Tallow Air Pro",
                                          "Tallow Gateway Home", "Tallow Air Pro CO2")]
    assert rows.pick("How expensive is the Gateway Pro?", found).lines == [(1, "Price: $199.00")]
    assert rows.pick("Rain Gaugeのカテゴリは？", [_passage(table["Tallow Rain Gauge"])]).lines == [
        (1, "Category: Garden")]
    m = NameMatcher(["Into the Wild", "Where the Wild Things Are", "Wild: From Lost to Found on the Pacific Crest"],
                    context=True)
    assert (m.read("What's the ISBN of Into the Wild?").named or m).row == 0  # type: ignore[union-attr]
    assert (m.read("Who wrote Wild?").named or m).row == 2  # type: ignore[union-attr]


def test_a_field_no_found_row_gives_is_refused_naming_the_row() -> None:
    table = {r["Product Name"]: r for r in _table(SENSORS)}
    texts = [_passage(table["Tallow Leak Puck"])]
    assert rows.pick("What is the weight of the Leak Puck?", texts).lines == []
    said = rows.refusal("What is the weight of the Leak Puck?", texts)
    assert "Tallow Leak Puck" in said and "weight" in said and "$" not in said.split("gives:")[0], said


def test_rows_found_for_a_question_that_names_none_are_not_called_the_wrong_one() -> None:
    """Issue 55: "¿Qué viene en la caja?" over the demo found only product rows and said "the rows found (Tallow
    Door Contact) are not the one asked about", as if a product had been named."""
    table = {r["Product Name"]: r for r in _table(SENSORS)}
    texts = [_passage(table["Tallow Door Contact"]), _passage(table["Tallow Motion"])]
    for question in ("What comes in the box?", "盒子里有什么？"):
        assert rows.pick(question, texts).lines == []
        said = rows.refusal(question, texts)
        assert "Tallow Door Contact" in said and "asked about" not in said and "所问" not in said, said
    # A name that comes near one of them is still told apart from it.
    near = rows.refusal("What is the price of the Door Contakt XL Pro?", texts)
    assert "closest is Tallow Door Contact" in near, near


def test_rows_none_of_which_is_asked_about_are_refused_never_dumped() -> None:
    """Issue 63: 「斯蒂芬·金写了多少本书？」 over goodbooks answered with "book_id: 295 goodreads_book_id: …"."""
    table = _table(corpus("goodbooks10k", "books.csv"), 12)
    texts = [_passage(r) for r in table[:5]]
    hits = _hits(texts, [r["title"] for r in table[:5]])
    answer = compose(Question.parse("斯蒂芬·金写了多少本书？"), hits, None, space="books", documents=5,
                     cfg=ComposeSettings())
    assert answer.mode == "none" and "book_id" not in answer.text and "资料" in answer.text, answer.text


# ---- fields named by their kind and number, by a count, by a unit; names that say another thing -----------------
@pytest.fixture(scope="module")
def books_router() -> tuple[Router, object]:
    return _router(corpus("goodbooks10k", "books.csv"), limit=300)


@pytest.fixture(scope="module")
def products_router() -> tuple[Router, object]:
    return _router(corpus("amazon_products", "test_sample_1000.csv"), limit=300)


def _cell(path: Path, name_field: str, row: str, field: str, limit: int = 300) -> str:
    return next(r[field] for r in _table(path, limit) if r[name_field] == row)


@pytest.mark.parametrize(("question", "row", "field"), [
    ("how many 5 star ratings does The Martian have", "The Martian", "ratings_5"),
    ("The Kite Runner 有多少个一星评价？", "The Kite Runner", "ratings_1"),
    ("Wie viele Fünf-Sterne-Bewertungen hat Dracula?", "Dracula", "ratings_5"),
    ("What is the ISBN-13 of The Giver?", "The Giver (The Giver, #1)", "isbn13"),
    # "how many" asks the count of fields named alike; 评分多少 ("the rating, how much") asks no count.
    ("How many people rated Gone Girl?", "Gone Girl", "ratings_count"),
    ("The Book Thief 评分多少？", "The Book Thief", "average_rating"),
    # The row's own words read as a field's ("name") are the row's name: the rating is asked.
    ("Name of the Wind average score", "The Name of the Wind (The Kingkiller Chronicle, #1)", "average_rating"),
])
def test_a_field_is_named_by_its_kind_and_number_or_by_a_count(books_router: tuple[Router, object], question: str,
                                                              row: str, field: str) -> None:
    title, asked, value = _lookup(books_router, question)
    assert (title, asked) == (row, field), (question, title, asked)
    want = _cell(corpus("goodbooks10k", "books.csv"), "title", row, field)
    assert str(value).removesuffix(".0") == want.removesuffix(".0") or float(str(value)) == float(want)


def test_a_units_word_names_its_field_only_when_it_is_asked(demo_router: tuple[Router, object]) -> None:
    assert _lookup(demo_router, "How many meters can the Gateway Pro cover?")[:2] == ("Tallow Gateway Pro",
                                                                                      "Range (m)")
    # "Meter" in the Flow Meter's name is its name, not the range in metres.
    assert _lookup(demo_router, "Flow Meter のカテゴリ")[:2] == ("Tallow Flow Meter", "Category")
    assert _lookup(demo_router, "what's the warranty on the Flow Meter")[0] is None


@pytest.mark.parametrize(("question", "closest"), [
    ("leak cable 5 m price", "Tallow Leak Cable 3 m"),  # a number the row does not carry
    ("Was kostet der Tallow Gateway Mini?", ""),  # another row's word ("Gateway") beside "Mini"
    ("Rain Gauge Pro の価格は？", "Tallow Rain Gauge"),
    ("What's the release year of the Thermo Probe 2?", "Tallow Thermo Probe"),
])
def test_a_number_or_another_rows_word_in_the_names_place_names_no_row(demo_router: tuple[Router, object],
                                                                       question: str, closest: str) -> None:
    routed = demo_router[0].route(question)
    assert routed.call is None and routed.refusal is not None and routed.refusal.kind == "row", routed
    if closest:
        assert routed.refusal.closest == closest


def test_a_code_the_row_carries_still_names_it(products_router: tuple[Router, object]) -> None:
    title, field, value = _lookup(products_router, "Blade 130 S shipping weight")
    assert title is not None and title.startswith("Blade 130 S") and field == "Shipping Weight" and value


def test_a_title_inside_a_longer_name_names_no_row(books_router: tuple[Router, object]) -> None:
    routed = books_router[0].route("Four: A Divergent Collection 评分多少？")
    assert routed.call is None, routed.call  # not Divergent's rating
    assert routed.absent_row is not None and "Divergent" in routed.absent_row.asked


def test_an_absent_attribute_outweighs_a_question_form_or_a_word_inside_it(demo_router: tuple[Router, object],
                                                                          books_router: tuple[Router, object]) -> None:
    routed = demo_router[0].route("How much does the Gateway Home weigh?")  # not its price
    assert routed.call is None and routed.refusal is not None and routed.refusal.kind == "field", routed
    routed = books_router[0].route("Who published The Help?")  # the publisher, not the year it was published
    assert routed.call is None and routed.refusal is not None and routed.refusal.asked == "who published", routed


def test_a_field_the_rows_hold_but_the_index_leaves_out_is_looked_up_in_the_named_row(
        products_router: tuple[Router, object]) -> None:
    router = products_router[0]
    assert router.spec.get("Product Dimensions") is None and "Product Dimensions" in router.spec.extra["unindexed"]
    routed = router.route("dog agility chute dimensions")
    # Not "the table gives no dimensions": 16 of the 300 rows hold them, in their passages; the named row's own text
    # is read for it (services/structured.py), never another passage retrieval finds.
    assert routed.refusal is None and routed.absent_row is None, routed
    assert routed.call is not None and routed.call.tool == "lookup" and routed.call.field == "Product Dimensions"
    assert router.vocabulary.title(routed.call.doc_id or "").startswith("Pacific Play Tent Agility Dog Training Chute")
    assert any("Product Dimensions" in e for e in routed.evidence)


# ---- the real engine over the demo: the issue's four examples -----------------------------------------------------
@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    eng = Engine.open(tmp_path_factory.mktemp("rows") / "home")
    eng.models.set_llm(None)
    build_demo(eng)
    try:
        yield eng
    finally:
        eng.close()


@pytest.mark.parametrize(("question", "said", "row"), [
    ("What is the price of the Leak Puck?", "The Tallow Leak Puck costs $24.00 [1].", "Tallow Leak Puck"),
    ("How long does the battery of the Door Contact last?", "48 months [1]", "Tallow Door Contact"),
    ("When did the Glass Break come out?", "The Tallow Glass Break came out in 2022 [1].", "Tallow Glass Break"),
    ("Leak Puck 多少钱？", "Tallow Leak Puck 的价格是 $24.00[1]。", "Tallow Leak Puck"),
])
def test_the_issues_examples_are_answered_from_the_row_citing_it(demo: Engine, question: str, said: str,
                                                                 row: str) -> None:
    result = demo.answer("demo", question)
    a = result.answer
    assert a is not None and a.mode == "structured" and said in a.text, a and a.text
    assert [c.document for c in a.citations] == [row] and result.chunks[0].document == row
    assert a.citations[0].chunk_id == result.chunks[0].chunk_id  # the row's passage, which the console opens


@pytest.mark.parametrize(("question", "said"), [
    ("Battery life of the Gateway Pro?",
     "That is not in your material: the table has the column Battery life, but its cell for Tallow Gateway Pro "
     "is empty."),
    ("Gateway Outdoor 电池能用几个月？",
     "你的资料里没有这个：表中有 Battery life 这一列，但 Tallow Gateway Outdoor 的这一格是空的。"),
    ("Wie lange hält der Akku vom Gateway Home?",
     "Das steht nicht in Ihrem Material: Die Tabelle hat die Spalte Battery life, aber für Tallow Gateway Home ist sie "
     "leer."),
])
def test_an_empty_cell_is_not_in_your_material_in_the_questions_language(demo: Engine, question: str,
                                                                        said: str) -> None:
    a = demo.answer("demo", question).answer
    assert a is not None and a.mode == "none" and a.text == said, a and a.text


def test_the_issues_absent_product_is_refused_naming_the_closest(demo: Engine) -> None:
    a = demo.answer("demo", "What is the price of the Tallow Smoke Alarm?").answer
    assert a is not None and a.mode == "none" and "not in your material" in a.text and "$" not in a.text, a and a.text
    assert "Tallow Smoke Alarm" in a.text and "closest is Tallow" in a.text


def test_in_a_space_of_rows_only_an_unknown_name_is_refused_by_the_index(demo: Engine) -> None:
    """No passage could name it either: the index says so, naming the closest row (issue 64)."""
    demo.create_space("sensors", encrypted=False)
    demo.ingest("sensors", [SENSORS])
    demo.index.build("sensors", exact=["SKU", "Product Url"])
    result = demo.answer("sensors", "What does the Acme Turbo Blender 3000 cost?")
    assert result.refused is not None and result.answer is not None and result.answer.mode == "none"
    assert "Acme Turbo Blender" in result.answer.text and "$" not in result.answer.text, result.answer.text
    # In the demo, beside its handbook and price pages, the same question goes to retrieval.
    assert demo.answer("demo", "What does the Acme Turbo Blender 3000 cost?").refused is None


def test_a_name_in_another_script_says_what_it_looked_for_and_dumps_no_row(demo: Engine, tmp_path: Path) -> None:
    """Issue 63: 「斯蒂芬·金写了多少本书？」 over goodbooks answered "book_id: 295 goodreads_book_id: …"."""
    from tests.core.test_structured_engine import _books_csv

    _books_csv(tmp_path / "books.csv", rows=40)
    demo.create_space("books", encrypted=False)
    demo.ingest("books", [tmp_path / "books.csv"])
    demo.index.build("books")
    result = demo.answer("books", "斯蒂芬·金写了多少本书？")
    a = result.answer
    assert result.structured is None and a is not None and a.mode == "none", a and a.text
    assert "book_id" not in a.text and "authors" in a.text and "斯蒂芬" in a.text, a.text


def test_the_prose_battery_question_goes_to_retrieval(demo: Engine) -> None:
    result = demo.answer("demo", "How long does the battery of the temperature probe last?")
    assert result.structured is None and result.answer is not None
    assert "Air Pro CO2" not in result.answer.text and "18 months" in result.answer.text, result.answer.text


@pytest.mark.parametrize(("question", "line"), [
    ("What is the price of the Leak Puck?", "Price: $24.00"),
    ("How long does the battery of the Door Contact last?", "Battery life (months): 48"),
    ("When did the Glass Break come out?", "Released: 2022"),
])
def test_with_the_index_off_the_row_passage_gives_the_asked_line(demo: Engine, question: str, line: str) -> None:
    params = dataclasses.replace(demo._retriever.params(), use_structured=False)
    a = demo.answer("demo", question, params=params).answer
    assert a is not None and a.mode == "extractive" and a.text.startswith(line) and "Product Url" not in a.text, a


def test_with_the_index_off_an_absent_product_gets_no_other_rows_value(demo: Engine) -> None:
    params = dataclasses.replace(demo._retriever.params(), use_structured=False)
    a = demo.answer("demo", "What is the price of the Tallow Smoke Alarm?", params=params).answer
    assert a is not None and "Product Url" not in a.text and "Price:" not in a.text, a.text


def test_curator_synonyms_are_kept_with_the_index_and_route(demo: Engine) -> None:
    question = "Wie lange ist die Standzeit des Door Contact?"
    assert demo.answer("demo", question).answer.mode != "structured"  # type: ignore[union-attr]
    assert demo.index.set_synonyms("demo", "Battery life (months)", ["Standzeit", " standzeit "]) == ["Standzeit"]
    a = demo.answer("demo", question).answer
    assert a is not None and a.mode == "structured" and "48 months" in a.text, a and a.text
    assert demo.index.synonyms("demo")["Battery life (months)"] == ["Standzeit"]
    demo.index.build("demo", exact=["SKU", "Product Url"])  # a rebuild keeps them
    assert demo.index.synonyms("demo")["Battery life (months)"] == ["Standzeit"]
    demo.index.set_synonyms("demo", "Battery life (months)", [])
