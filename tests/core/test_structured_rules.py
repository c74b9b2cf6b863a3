"""The structured index's parts without a model: headers, types, tools and routing (SPEC S2, S5).

Routing is checked on the real goodbooks and product rows (read with the csv module,
typed and indexed exactly as a build does), against answers computed here in Python.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from biny.core.structured.header import read_header
from biny.core.structured.propose import DocText, headers, propose, row_values, select
from biny.core.structured.route import Router
from biny.core.structured.spec import IndexSpec
from biny.core.structured.tools import Condition, ToolCall, ToolError, build_table, run
from biny.core.structured.values import guess_type, number_of, split_items
from tests.conftest import corpus


def test_headers_in_three_shapes_and_none_in_prose() -> None:
    pep = "PEP: 8\nTitle: Style Guide for Python Code\nAuthor: Guido van Rossum\n\nIntroduction\n"
    fields = {f.name: f for f in read_header(pep)}
    assert fields["Title"].value == "Style Guide for Python Code"
    assert pep[fields["Author"].start : fields["Author"].end] == "Guido van Rossum"
    front = "---\ntitle: 三体\n作者: 刘慈欣\n---\n正文开始。"
    assert [(f.name, f.value) for f in read_header(front)] == [("title", "三体"), ("作者", "刘慈欣")]
    table = "# Widget\n\n| Field | Value |\n|---|---|\n| Price | $9.50 |\n| SKU | W-100 |\n\nText."
    got = read_header(table)
    assert [(f.name, f.value) for f in got] == [("Price", "$9.50"), ("SKU", "W-100")]
    assert all(table[f.start : f.end] == f.value for f in got)
    prose = "Note: this is a sentence that happens to start with a word and a colon.\nAnd then it goes on."
    assert read_header(prose) == []
    late = "Para one.\n\nPara two.\n\nPara three.\n\nPara four.\n\nPara five.\n\nAuthor: x\nYear: 2001"
    assert read_header(late) == []


@pytest.mark.parametrize(("name", "values", "expected"), [
    ("Selling Price", ["$9.99", "$1,299.00", "$15.00 - $20.00"], "money"),
    ("original_publication_year", ["2008.0", "1997.0", "-720.0"], "year"),
    ("Created", ["2001-07-05", "2010-01-12", "1999-12-31"], "date"),
    ("authors", ["A. Smith, B. Jones", "A. Smith", "C. Wu, B. Jones", "D. Li", "A. Smith, D. Li"], "list"),
    ("image_url", ["https://x.org/a.jpg", "https://x.org/b.jpg"], "url"),
    ("isbn", ["439023483", "0316015849", "043965548X"], "identifier"),
    ("language_code", ["eng", "eng", "en-US", "fre", "eng"], "text"),
    ("average_rating", ["4.34", "3.9", "4.0"], "number"),
])
def test_types_follow_the_values(name: str, values: list[str], expected: str) -> None:
    assert guess_type(name, values).type == expected


def test_numbers_are_derived_alongside_verbatim_values() -> None:
    assert number_of("$1,299.00", "money") == 1299.0
    assert number_of("25元", "money") == 25.0
    assert number_of("2008.0", "year") == 2008.0
    assert number_of("2001-07-05", "date") == 2001.0
    assert number_of("10.7 pounds", "number") == 10.7
    assert split_items("Toys & Games | Puzzles (3D | Wood) | Kids", " | ") == ["Toys & Games", "Puzzles (3D | Wood)",
                                                                              "Kids"]


def _rows(path: Path, limit: int) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [r for _, r in zip(range(limit), reader, strict=False)]
    return list(reader.fieldnames or []), rows


def _index(path: Path, limit: int, exact: list[str] | None = None) -> tuple[IndexSpec, Router, list[dict[str, str]],
                                                                           object]:
    _, rows = _rows(path, limit)
    docs = [DocText(f"d{i}", 1, "", "\n".join(f"{k}: {' '.join(v.split())}" for k, v in r.items() if v.strip()))
            for i, r in enumerate(rows)]
    spec = select(propose(docs), None, exact)
    table = build_table(spec, [(h.doc_id, 1, h.title, row_values(h, spec)) for h in headers(docs)])
    return spec, Router(spec, table), rows, table


@pytest.fixture(scope="module")
def books() -> tuple[IndexSpec, Router, list[dict[str, str]], object]:
    return _index(corpus("goodbooks10k", "books.csv"), 2000, ["image_url", "isbn"])


def _ask(books: tuple[IndexSpec, Router, list[dict[str, str]], object], q: str) -> tuple[ToolCall, object]:
    spec, router, _, table = books
    routed = router.route(q)
    assert routed.call is not None, f"not routed: {q} ({routed.evidence})"
    return routed.call, run(table, spec, routed.call).result  # type: ignore[arg-type]


def test_count_filter_group_top_lookup_in_english_and_chinese(books: tuple[IndexSpec, Router, list[dict[str, str]],
                                                                          object]) -> None:
    rows = books[2]
    year = [float(r["original_publication_year"]) for r in rows if r["original_publication_year"]]
    before_1900 = sum(y < 1900 for y in year)
    for q in ("How many books were published before 1900?", "有多少本书是1900年以前出版的？"):
        call, result = _ask(books, q)
        assert (call.tool, result) == ("count", before_1900)
    king = sum("Stephen King" in r["authors"].split(", ") for r in rows)
    for q in ("How many books by Stephen King are there?", "Stephen King写了几本书？"):
        assert _ask(books, q)[1] == king
    authors = Counter(a for r in rows for a in r["authors"].split(", "))
    top_author = authors.most_common(1)[0][0]
    for q in ("Which author has the most books?", "哪位作者的书最多？"):
        call, result = _ask(books, q)
        assert (call.tool, result) == ("group", top_author)
    most_rated = max(rows, key=lambda r: int(r["ratings_count"]))["title"]
    for q in ("Which book has the most ratings?", "评分人数最多的书是哪本？"):
        call, result = _ask(books, q)
        assert (call.tool, call.field, result) == ("top", "ratings_count", most_rated)
    span = sorted(r["title"] for r in rows if r["original_publication_year"]
                  and 1800 <= float(r["original_publication_year"]) <= 1810)
    for q in ("Which books were published between 1800 and 1810?", "哪些书是在1800到1810年之间出版的？"):
        call, result = _ask(books, q)
        assert call.tool == "filter" and sorted(result) == span  # type: ignore[arg-type]
    gatsby = next(r for r in rows if r["title"] == "The Great Gatsby")
    for q in ("Send me the cover image of The Great Gatsby", "《The Great Gatsby》的封面图片链接是什么？"):
        call, result = _ask(books, q)
        assert (call.tool, call.field, result) == ("lookup", "image_url", gatsby["image_url"])


def test_language_names_match_language_codes(books: tuple[IndexSpec, Router, list[dict[str, str]], object]) -> None:
    french = sum(r["language_code"] == "fre" for r in books[2])
    call, result = _ask(books, "How many books are in French?")
    assert call.conditions[0].field == "language_code" and result == french
    english = sum(r["language_code"].startswith("en") for r in books[2])
    assert _ask(books, "英文书有多少本？")[1] == english


def test_magnitudes_and_bare_counts(books: tuple[IndexSpec, Router, list[dict[str, str]], object]) -> None:
    rows = books[2]
    million = sum(int(r["ratings_count"]) > 1_000_000 for r in rows)
    for q in ("评分人数超过100万的书有几本？", "How many books have more than 1 million ratings?"):
        assert _ask(books, q)[1] == million, q
    for q in ("一共有多少本书？", "How many books are there in total?"):
        assert _ask(books, q)[1] == len(rows), q


@pytest.mark.parametrize("q", [
    "阿加莎·克里斯蒂有几本书？",  # a name in Chinese script that no author value is written as
    "How many books did Nobody Atall write?",
    "What is The Hunger Games about?", "How many districts are there in Panem?", "Why do people like fantasy?",
    "这本书讲了什么？", "What happens at the end of the story?",
])
def test_questions_about_content_are_not_routed(books: tuple[IndexSpec, Router, list[dict[str, str]], object],
                                                q: str) -> None:
    assert books[1].route(q).call is None


def test_tools_accept_only_the_index_columns_and_bind_values(
        books: tuple[IndexSpec, Router, list[dict[str, str]], object]) -> None:
    spec, _, _, table = books
    with pytest.raises(ToolError, match="unknown field"):
        run(table, spec, ToolCall("count", conditions=[Condition("price; DROP TABLE idx", "=", "1")]))  # type: ignore[arg-type]
    with pytest.raises(ToolError, match="unknown operator"):
        run(table, spec, ToolCall("count", conditions=[Condition("authors", "LIKE", "%")]))  # type: ignore[arg-type]
    hostile = run(table, spec, ToolCall("count", conditions=[Condition("title", "=", "x' OR '1'='1")]))  # type: ignore[arg-type]
    assert hostile.result == 0 and "x' OR" not in hostile.sql


def test_a_small_table_with_integer_ids_still_routes_by_the_named_measure() -> None:
    """40 rows: ids are integers here; "which book" names the row, not the "book_id" column."""
    spec, router, rows, table = _index(corpus("goodbooks10k", "books.csv"), 40)
    assert spec.get("book_id").type == "integer"  # type: ignore[union-attr]
    routed = router.route("Which book has the most ratings?")
    assert routed.call is not None and routed.call.field == "ratings_count"
    assert run(table, spec, routed.call).result == max(rows, key=lambda r: int(r["ratings_count"]))["title"]  # type: ignore[arg-type]
    routed = router.route("Which book has the highest book_id?")  # named in full, it is the field
    assert routed.call is not None and routed.call.field == "book_id"


def test_products_price_category_and_url(tmp_path: Path) -> None:
    spec, router, rows, table = _index(corpus("amazon_products", "test_sample_1000.csv"), 1000, ["Product Url"])
    kept = {f.name for f in spec.fields}
    assert {"Product Name", "Selling Price", "Category", "Product Url"} <= kept
    assert "Upc Ean Code" not in kept  # in 1 of 1000 rows: dropped
    prices = [number_of(r["Selling Price"], "money") for r in rows]
    under = sum(p is not None and p < 10 for p in prices)
    routed = router.route("How many products cost less than $10?")
    assert routed.call is not None
    assert run(table, spec, routed.call).result == under  # type: ignore[arg-type]
    named = rows[1]
    routed = router.route(f"What is the product url of {named['Product Name']}?")
    assert routed.call is not None and routed.call.tool == "lookup"
    assert run(table, spec, routed.call).result == named["Product Url"]  # type: ignore[arg-type]


def test_pep_headers_route_in_both_languages_and_names_match_without_their_email() -> None:
    """Another catalogue's shape: RFC 822 headers with continuation lines and "Name <email>" authors."""
    folder = corpus("python_peps")
    docs = [DocText(p.stem, 1, p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("pep-*.rst"))]
    spec = select(propose(docs), None, None)
    assert spec.title_field == "Title" and spec.get("Created").type == "date"  # type: ignore[union-attr]
    table = build_table(spec, [(h.doc_id, 1, h.title, row_values(h, spec)) for h in headers(docs)])
    router = Router(spec, table)
    heads = {h.doc_id: {k: f.value for k, f in h.fields.items()} for h in headers(docs)}
    final = sum(h.get("Status") == "Final" for h in heads.values())
    for q in ("How many PEPs are Final?", "有多少个PEP的状态是Final？"):
        routed = router.route(q)
        assert routed.call is not None and run(table, spec, routed.call).result == final, q  # type: ignore[arg-type]
    guido = sum(any(a.strip().startswith("Guido van Rossum") for a in h.get("Author", "").split(","))
                for h in heads.values())
    routed = router.route("How many PEPs did Guido van Rossum write?")
    assert routed.call is not None and run(table, spec, routed.call).result == guido  # type: ignore[arg-type]
    routed = router.route("What is the status of Style Guide for Python Code?")
    assert routed.call is not None and run(table, spec, routed.call).result == heads["pep-0008"]["Status"]  # type: ignore[arg-type]


def test_headers_as_markdown_writes_them_with_empty_and_continued_fields() -> None:
    bullets = "Pacific Rim: Extinction - Starter Set\n\n- **Category:** Board Games\n- **Price:** $44.95\n\nAbout it."
    got = read_header(bullets)  # the title reads like one field; the header follows it
    assert [(f.name, f.value) for f in got] == [("Category", "Board Games"), ("Price", "$44.95")]
    assert all(bullets[f.start : f.end] == f.value for f in got)
    bold = "**Price**: $10  \n**Colour**: red\n"
    assert [(f.name, f.value) for f in read_header(bold)] == [("Price", "$10"), ("Colour", "red")]
    pep = ("PEP: 634\nAuthor: Brandt Bucher <b@python.org>,\n        Guido van Rossum <g@python.org>\nBDFL-Delegate:\n"
           "Status: Final\nType: Standards Track\n\nAbstract\n")
    fields = {f.name: f for f in read_header(pep)}
    assert set(fields) == {"PEP", "Author", "Status", "Type"}  # an empty field neither counts nor ends the header
    assert fields["Author"].value == "Brandt Bucher <b@python.org>, Guido van Rossum <g@python.org>"
    indented = "  Price: 1\n  Colour: 2\n"  # an indented header is not one field with continuations
    assert [f.name for f in read_header(indented)] == ["Price", "Colour"]


def _pep_index() -> tuple[IndexSpec, Router, object, dict[str, dict[str, str]]]:
    folder = corpus("python_peps")
    docs = [DocText(p.stem, 1, p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("pep-*.rst"))]
    spec = select(propose(docs), None, None)
    table = build_table(spec, [(h.doc_id, 1, h.title, row_values(h, spec)) for h in headers(docs)])
    # The gold: each file's own header lines, read here without the index's reader.
    gold: dict[str, dict[str, str]] = {}
    for p in sorted(folder.glob("pep-*.rst")):
        head: dict[str, str] = {}
        for line in p.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                break
            name, _, value = line.partition(":")
            if not line[:1].isspace():
                head.setdefault(name.strip(), value.strip())
        gold[p.stem] = head
    return spec, Router(spec, table), table, gold


def test_pep_items_named_by_their_number_and_counts_over_dates_in_both_languages() -> None:
    from datetime import datetime

    spec, router, table, gold = _pep_index()
    for stem, head in gold.items():  # every PEP counted: an empty "BDFL-Delegate:" no longer ends a header
        assert head.get("Status") and stem
    final = sum(h["Status"] == "Final" for h in gold.values())
    routed = router.route("How many PEPs have the status Final?")
    assert routed.call is not None and run(table, spec, routed.call).result == final  # type: ignore[arg-type]
    for q, field, stem in (("What is the status of PEP 572?", "Status", "pep-0572"),
                           ("PEP 647的状态是什么？", "Status", "pep-0647"),
                           ("What is the title of PEP 8?", "Title", "pep-0008"),
                           ("PEP 3105的标题是什么？", "Title", "pep-3105")):
        routed = router.route(q)
        assert routed.call is not None and routed.call.tool == "lookup", q
        assert run(table, spec, routed.call).result == gold[stem][field], q  # type: ignore[arg-type]
    created = {s: datetime.strptime(h["Created"], "%d-%b-%Y") for s, h in gold.items()}
    before = sum(d.year < 2015 for d in created.values())
    for q in ("How many PEPs were created before 2015?", "2015年以前创建的PEP有多少个？"):
        routed = router.route(q)
        assert routed.call is not None and routed.call.conditions[0].field == "Created", q
        assert run(table, spec, routed.call).result == before, q  # type: ignore[arg-type]
    first = min(created, key=lambda s: created[s])
    routed = router.route("Which PEP was created first?")
    assert routed.call is not None and run(table, spec, routed.call).result == gold[first]["Title"]  # type: ignore[arg-type]
    # "first published in" is no extreme: no item, no field of this index — not routed as a top.
    routed = router.route("Which PEPs were first published in 2001?")
    assert routed.call is None or routed.call.tool != "top"


def test_a_value_outweighs_a_field_name_written_inside_it() -> None:
    """"母婴用品类" holds the word 品类 (a synonym of category): the value 母婴用品 is what it names."""
    rows = [("d1", "母婴用品", "$5"), ("d2", "母婴用品", "$7"), ("d3", "玩具游戏", "$9"), ("d4", "办公用品", "$3"),
            ("d5", "玩具游戏", "$4")]
    docs = [DocText(d, 1, f"商品{d}", f"名称：商品{d}\n类别：{c}\n价格：{p}\n\n正文。") for d, c, p in rows]
    spec = select(propose(docs), None, None)
    table = build_table(spec, [(h.doc_id, 1, h.title, row_values(h, spec)) for h in headers(docs)])
    routed = Router(spec, table).route("母婴用品类的商品有多少个？")
    assert routed.call is not None and run(table, spec, routed.call).result == 2  # type: ignore[arg-type]


def test_a_title_as_written_wins_over_a_shortened_one_whatever_the_row_order() -> None:
    """"The Hobbit" names the row titled so, never "The Hobbit: Graphic Novel" cut at its colon (issue 49)."""
    _, rows = _rows(corpus("goodbooks10k", "books.csv"), 10000)
    hobbits = [r for r in rows if r["title"] in {"The Hobbit", "The Hobbit: Graphic Novel"}]
    others = [r for r in rows[:300] if "Hobbit" not in r["title"] and r["title"] != "1984"]
    orwell = [r for r in rows if r["title"] == "1984"]
    assert len(hobbits) == 2 and len(orwell) == 1
    for order in (hobbits, hobbits[::-1]):
        chosen = [*order, *orwell, *others]
        docs = [DocText(f"d{i}", 1, "", "\n".join(f"{k}: {' '.join(v.split())}" for k, v in r.items() if v.strip()))
                for i, r in enumerate(chosen)]
        spec = select(propose(docs), None, ["isbn"])
        table = build_table(spec, [(h.doc_id, 1, h.title, row_values(h, spec)) for h in headers(docs)])
        router = Router(spec, table)
        real = next(r for r in chosen if r["title"] == "The Hobbit")
        for q, want in (("What is the ISBN of The Hobbit?", real["isbn"]), ("Who wrote The Hobbit?", real["authors"]),
                        ("When was The Hobbit first published?", "1937")):
            routed = router.route(q)
            assert routed.call is not None and run(table, spec, routed.call).result == want, q  # type: ignore[arg-type]
            assert "its title as written" in " ".join(map(str, routed.evidence))
        # A number that a field is asked "of" is a title; elsewhere it stays a year.
        routed = router.route("What is the image URL of 1984?")
        assert routed.call is not None and routed.call.tool == "lookup"
        assert run(table, spec, routed.call).result == orwell[0]["image_url"]  # type: ignore[arg-type]
        routed = router.route("How many books were published in 1984?")
        assert routed.call is not None and routed.call.tool == "count"
        # Integers stay integers; an ISBN-13 a spreadsheet wrote as 9.78e+12 is an identifier, not a number.
        assert spec.get("isbn13").type == "identifier"  # type: ignore[union-attr]
        assert spec.get("original_publication_year").type == "year"  # type: ignore[union-attr]
