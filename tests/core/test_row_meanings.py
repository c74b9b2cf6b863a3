"""Questions about one row, third pass (issue 64): fields by the meaning their headers do not say, a field the index
leaves out read from the named row, refusals that name the attribute in the question's language.

The rules without a model over goodbooks' and the product sample's first 300 rows (typed and indexed as a build
does), then the real engine (bundled model, real DuckDB and LanceDB in a tmp dir) over a small table.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator

import pytest

from biny.core.answer.structured import refused_answer
from biny.core.calls import Refusal
from biny.core.engine import Engine
from biny.core.structured import lexicon as lx
from biny.core.structured.route import Router
from biny.core.structured.tools import run
from biny.core.text.question import sentence_language
from tests.conftest import corpus
from tests.core.test_row_questions import SENSORS, _router

BOOKS = ("goodbooks10k", "books.csv")
PRODUCTS = ("amazon_products", "test_sample_1000.csv")


@pytest.fixture(scope="module")
def books() -> tuple[Router, object]:
    return _router(corpus(*BOOKS), limit=300)


@pytest.fixture(scope="module")
def products() -> tuple[Router, object]:
    return _router(corpus(*PRODUCTS), limit=300)


@pytest.fixture(scope="module")
def sensors() -> tuple[Router, object]:
    return _router(SENSORS, ["SKU", "Product Url"])


def _cell(parts: tuple[str, str], name_field: str, row: str, field: str) -> str:
    with corpus(*parts).open(newline="", encoding="utf-8") as fh:
        return next(r[field] for _, r in zip(range(300), csv.DictReader(fh), strict=False) if r[name_field] == row)


def _looked_up(router_table: tuple[Router, object], question: str) -> tuple[str, str, object]:
    router, table = router_table
    routed = router.route(question)
    assert routed.call is not None and routed.call.tool == "lookup", (question, routed.evidence, routed.refusal)
    result = run(table, router.spec, routed.call)  # type: ignore[arg-type]
    return result.rows[0]["title"], routed.call.field or "", result.result


@pytest.mark.parametrize(("question", "row", "field"), [
    # A count of the catalogue's own items in one row (books_count in a table of books) counts its editions.
    ("How many editions of The Hobbit are there?", "The Hobbit", "books_count"),
    ("Twilight 有几个版本？", "Twilight (Twilight, #1)", "books_count"),
    ("Wie viele Ausgaben hat Dracula?", "Dracula", "books_count"),
    # A number after a count field's "of" names a row: not "books published in 1984".
    ("Number of editions of 1984?", "1984", "books_count"),
    # "small image" is what people call a thumbnail: the small image, not the large one.
    ("thumbnail of The Martian", "The Martian", "small_image_url"),
    ("Dracula のサムネイル", "Dracula", "small_image_url"),
    ("Dracula 的缩略图", "Dracula", "small_image_url"),
    # A qualifier prefers the field it names among those named alike: the work's ratings, over all its editions.
    ("ratings of The Martian across all editions", "The Martian", "work_ratings_count"),
    ("The Martian の全版の評価数", "The Martian", "work_ratings_count"),
    ("How many ratings does The Martian have?", "The Martian", "ratings_count"),
    # One of the field's words as written, another in translation: goodreads … 编号 is goodreads_book_id.
    ("Dracula 在 goodreads 上的编号", "Dracula", "goodreads_book_id"),
])
def test_a_field_is_named_by_the_meaning_its_header_does_not_say(books: tuple[Router, object], question: str,
                                                                 row: str, field: str) -> None:
    title, asked, value = _looked_up(books, question)
    assert (title, asked) == (row, field), (question, title, asked)
    want = _cell(BOOKS, "title", row, field)
    assert str(value).removesuffix(".0") == want.removesuffix(".0")


def test_of_two_fields_named_side_by_side_the_head_noun_is_asked(products: tuple[Router, object]) -> None:
    """"amazon link": "amazon" names the "Is Amazon Seller" column too, but the link is what is asked."""
    title, field, value = _looked_up(products, "amazon link for the Mikasa VSO2000")
    assert title.startswith("Mikasa VSO2000") and field == "Product Url", (title, field)
    assert str(value).startswith("https://www.amazon.com/")
    # Alone, "amazon" still names its own column.
    assert _looked_up(products, "Is Amazon Seller for the Mikasa VSO2000?")[1] == "Is Amazon Seller"


def test_a_unit_after_a_number_the_name_writes_with_a_mark_is_the_names(products: tuple[Router, object]) -> None:
    title, field, value = _looked_up(products, "Wie viel kostet der 9 Zoll Soccer Ball Inflate?")
    assert (title, field) == ('9" SOCCER BALL INFLATE', "Selling Price") and value
    # Another number is still another thing: no row is a 12-inch soccer ball inflate.
    routed = products[0].route("Wie viel kostet der 12 Zoll Soccer Ball Inflate?")
    refused = routed.refusal or routed.absent_row  # the latter refused by the service in a space of rows only
    assert routed.call is None and refused is not None and refused.kind == "row", routed


def test_a_word_of_a_held_concept_is_never_lacking_through_another(sensors: tuple[Router, object]) -> None:
    """编号 is an identifier and a SKU's number: over the demo's table (a SKU, no "id") it asks the SKU."""
    title, field, value = _looked_up(sensors, "Leak Puck 的编号")
    assert (title, field, value) == ("Tallow Leak Puck", "SKU", "TL-10")
    # An attribute no field holds is still refused, named as the question's language names it.
    routed = sensors[0].route("How much does the Gateway Home weigh?")
    assert routed.refusal is not None and routed.refusal.concept == "weight", routed


@pytest.mark.parametrize(("question", "asked", "said", "unsaid"), [
    ("How much does the Gateway Home weigh?", "weigh", "gives no weight for", "no weigh "),
    ("Welche Farbe hat der Leak Puck?", "welche farbe", "kein(e) Farbe", "welche farbe"),
    ("The Hunger Games 多少钱？", "多少钱", "的价格", "多少钱"),
    ("Who published The Help?", "who published", "gives no publisher for", "who published"),
])
def test_a_field_refusal_names_the_attribute_in_the_questions_language(question: str, asked: str, said: str,
                                                                      unsaid: str) -> None:
    concept = lx.concept_of(asked)
    a = refused_answer(question, Refusal("field", asked, "", "The Row", "d1", concept), ["Price"])
    assert a.mode == "none" and said in a.text and unsaid not in a.text, a.text
    assert lx.said_as("weight", "ja") == "重さ" and lx.said_as("price", "zh") == "价格"


def test_a_german_field_word_with_no_english_word_is_german() -> None:
    assert sentence_language("Akkulaufzeit Gateway Home") == "de"
    assert sentence_language("Kategorie vom COBI M3 Grant Tank") == "de"
    assert sentence_language("Battery life of the Gateway Pro?") == "en"
    assert sentence_language("What is the Preis of the Leak Puck?") == "en"


# ---- the real engine: a field the index leaves out, read from the named row ----------------------------------------
ROWS = [("Harbor Lamp", "$30.00", "12 x 4 x 4 inches"), ("Meadow Chair", "$80.00", ""), ("Ridge Kettle", "$25.00", ""),
        ("Cedar Shelf", "$55.00", ""), ("Brook Mug", "$9.00", ""), ("Summit Tent", "$140.00", ""),
        ("Valley Rug", "$60.00", ""), ("Canyon Stool", "$35.00", ""), ("Prairie Clock", "$22.00", ""),
        ("Glacier Fan", "$45.00", ""), ("Orchard Basket", "$18.00", ""), ("Delta Desk", "$210.00", "")]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    tmp = tmp_path_factory.mktemp("shop")
    path = tmp / "shop.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["Product Name", "Price", "Product Dimensions"])
        w.writerows(ROWS)
    eng = Engine.open(tmp / "home")
    eng.models.set_llm(None)
    eng.create_space("shop", encrypted=False)
    eng.ingest("shop", [path])
    eng.index.build("shop")
    try:
        yield eng
    finally:
        eng.close()


def test_a_field_the_index_leaves_out_is_read_from_the_named_rows_own_text(shop: Engine) -> None:
    info = shop.index.info("shop")
    assert info is not None and info.spec.get("Product Dimensions") is None  # 1 of 12 rows: under 1/5, left out
    result = shop.answer("shop", "What are the dimensions of the Harbor Lamp?")
    a = result.answer
    assert a is not None and a.mode == "structured" and "12 x 4 x 4 inches" in a.text, a and a.text
    assert [c.document for c in a.citations] == ["Harbor Lamp"]  # the row itself is the cited source
    # A row whose own text gives none: its cell is empty, said so — never another row's dimensions.
    a = shop.answer("shop", "What are the dimensions of the Meadow Chair?").answer
    assert a is not None and a.mode == "none" and "12 x 4" not in a.text and "Meadow Chair" in a.text, a and a.text


@pytest.mark.parametrize("question", ["What is the return policy of the Prairie Clock?",
                                      "Prairie Clock の返品ポリシーは？",
                                      "Aus welchem Herkunftsland kommt die Prairie Clock?"])
def test_a_row_asked_what_no_field_holds_is_never_answered_from_another_row(shop: Engine, question: str) -> None:
    """The question names one row and asks what no column holds: retrieval may answer from that row's own text or
    from prose, never from another row. A cut that keeps every passage found (``max_distance``) hands the answer
    other rows; they leave the context, and the answer says the named row's own text does not say."""
    result = shop.answer("shop", question, max_distance=2.0)
    a = result.answer
    assert result.routed is not None and result.routed.named_row is not None, result.routed
    assert result.routed.named_row[1] == "Prairie Clock"
    assert {h.document for h in result.chunks} <= {"Prairie Clock"}, [h.document for h in result.chunks]
    assert a is not None and all(c.document == "Prairie Clock" for c in a.citations), a and a.text
    assert a.mode == "none" or a.citations, a.text
    if a.mode == "none":
        assert "Prairie Clock" in a.text, a.text


def test_a_kind_of_a_field_the_table_says_it_does_not_hold_is_refused(products: tuple[Router, object],
                                                                     sensors: tuple[Router, object]) -> None:
    """"list price" where the column is "Selling Price": another price, refused naming the closest field — never the
    selling price as if it were the list price."""
    routed = products[0].route("list price of the Mikasa VSO2000?")
    assert routed.call is None and routed.refusal is not None, routed
    assert (routed.refusal.kind, routed.refusal.asked, routed.refusal.closest) == ("field", "list price",
                                                                                   "Selling Price")
    assert routed.refusal.row.startswith("Mikasa VSO2000")
    # The selling price itself is answered; and a plain "Price" column says no kind, so it answers a list price.
    assert _looked_up(products, "price of the Mikasa VSO2000?")[1] == "Selling Price"
    assert _looked_up(sensors, "list price of the Leak Puck?")[1:] == ("Price", "$24.00")


@pytest.mark.parametrize(("question", "row"), [
    ("COBI M3 Grant Panzer Gewicht", "COBI Historical Collection M3 Grant Tank"),  # Panzer: tank
    ("Modellnummer vom Delta Children Bistro Stuhlset", "Delta Children Bistro 2-Piece Chair Set"),  # Stuhl + set
    ("Kettler 卓球セットの型番", "Kettler Advantage Indoor Table Tennis Bundle"),  # the glossary: 卓球, セット
    ("Kettler 乒乓球套装的型号", "Kettler Advantage Indoor Table Tennis Bundle"),  # the Chinese–English dictionary
])
def test_a_name_partly_in_the_users_language_names_its_row(products: tuple[Router, object], question: str,
                                                           row: str) -> None:
    title, field, value = _looked_up(products, question)
    assert title.startswith(row) and value, (question, title, field)


def test_rendered_words_alone_name_no_row(products: tuple[Router, object]) -> None:
    """A translated word only confirms a row the question's own words name: "the Panzer" or 乒乓球套装 alone could be
    any tank or table-tennis set, so no row's value is given for them."""
    for question in ("Was kostet der Panzer?", "乒乓球套装的型号是什么？"):
        routed = products[0].route(question)
        assert routed.call is None or routed.call.tool != "lookup", (question, routed)


@pytest.mark.parametrize(("question", "field"), [
    ("Versandgewicht der Mikasa VSO2000", "Shipping Weight"),  # a German compound ends with its head: Gewicht
    ("Verkaufspreis des Mikasa VSO2000", "Selling Price"),
    ("Produktbild vom Mikasa VSO2000", "Image"),
    ("Mikasa VSO2000 product specs", "Product Specification"),
    ("Mikasa VSO2000 重多少？", "Shipping Weight"),
])
def test_a_german_compound_names_the_field_of_its_head(products: tuple[Router, object], question: str,
                                                       field: str) -> None:
    title, asked, value = _looked_up(products, question)
    assert title.startswith("Mikasa VSO2000") and asked == field and value, (question, title, asked)


def test_a_compound_names_counts_too(books: tuple[Router, object]) -> None:
    assert _looked_up(books, "Wie viele Textrezensionen hat Dracula?")[1] == "work_text_reviews_count"
    assert _looked_up(books, "Wie viele Leser haben Dracula bewertet?")[1] == "ratings_count"


@pytest.mark.parametrize(("question", "title", "field", "value"), [
    ("how much is TA-210", "Tallow Air Pro CO2", "Price", "$119.00"),
    ("TV-7 的价格", "Tallow Vibration", "Price", "$99.00"),
    ("battery months for TM-20", "Tallow Motion", "Battery life (months)", "30"),
])
def test_a_row_named_by_its_code_alone_is_that_row(sensors: tuple[Router, object], question: str, title: str,
                                                   field: str, value: str) -> None:
    """No field named ("how much is TA-210"): a token of letters and digits that is exactly one row's identifier."""
    got = _looked_up(sensors, question)
    assert got[:2] == (title, field), got
    assert str(got[2]).removesuffix(".0") == value, got


def test_a_code_no_row_carries_or_a_bare_number_names_no_row(sensors: tuple[Router, object]) -> None:
    unknown = sensors[0].route("how much is TA-999")
    assert unknown.call is None or unknown.call.doc_id is None, unknown
    routed = sensors[0].route("what costs 119?")
    assert routed.call is None or routed.call.tool != "lookup", routed


@pytest.mark.parametrize(("question", "title"), [
    ("Wird die Gym Dandy Teeter-Totter Wippe direkt von Amazon verkauft?", "Gym Dandy Teeter-Totter"),
    ("Was kostet das Medieval Princess Fuschia Kostüm?", "Medieval Princess Fuschia"),
])
def test_the_questions_own_noun_beside_an_english_name_is_no_part_of_it(products: tuple[Router, object],
                                                                         question: str, title: str) -> None:
    """German capitalises every noun: "Wippe" (a seesaw) beside "Gym Dandy Teeter-Totter" is the asker's word for
    the thing, an everyday German word English lacks — not an unknown word in the name's place."""
    got = _looked_up(products, question)
    assert got[0] is not None and got[0].startswith(title), got


def test_an_english_word_in_the_names_place_still_names_no_row(sensors: tuple[Router, object]) -> None:
    """"Smoke" is English, not the German asker's own word: the Tallow Smoke Alarm is still no row."""
    routed = sensors[0].route("Was kostet der Tallow Smoke Alarm?")
    refused = routed.refusal or routed.absent_row
    assert routed.call is None and refused is not None and refused.kind == "row", routed


def test_rows_named_by_the_same_words_read_a_little_differently_are_asked_which(products: tuple[Router,
                                                                                                 object]) -> None:
    """"Huffy kids bike": one row writes "Kids Bikes", another "Kid Bike" — the same words, a plural apart. Which one
    is meant is asked, never the one whose forms happen to be exact answered (its cell is another bike's)."""
    routed = products[0].route("how heavy is the Huffy kids bike to ship")
    assert routed.call is None and routed.refusal is not None and routed.refusal.kind == "which", routed
    assert "Huffy Kids Bikes" in routed.refusal.closest and "Huffy Disney Princess Kid Bike" in routed.refusal.closest


def test_a_value_inside_a_longer_name_no_row_has_is_no_filter(products: tuple[Router, object]) -> None:
    """"the Rayne Longboards Fury": a product no row names, whose name holds the category Longboards — refused as
    a row the table lacks, never answered with a count of longboards."""
    routed = products[0].route("model number of the Rayne Longboards Fury")
    refused = routed.refusal or routed.absent_row
    assert routed.call is None and refused is not None and refused.kind == "row", routed
    assert products[0].route("How many Longboards are there?").call is not None  # the category alone still counts


def test_a_titles_head_inside_a_longer_name_defers_to_the_longer_name(books: tuple[Router, object],
                                                                     products: tuple[Router, object]) -> None:
    """"Twilight" is the head of two titles; "the Twilight illustrated movie companion" names the companion (whose
    year is empty: said so, never the novel's year), and "pokemon tcg burning shadows elite trainer box" names no
    row, though "Pokemon TCG" heads one."""
    title, field, value = _looked_up(books, "When did the Twilight illustrated movie companion come out?")
    assert title is not None and "Movie Companion" in title and field == "original_publication_year", title
    assert value in (None, ""), value  # its cell is empty: the service says so
    routed = products[0].route("pokemon tcg burning shadows elite trainer box cost")
    assert routed.call is None, routed
    assert _looked_up(books, "when did twilight come out")[0] == "Twilight (Twilight, #1)"
