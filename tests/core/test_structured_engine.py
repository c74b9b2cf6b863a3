"""The structured index through the Engine and the CLI: real LanceDB/DuckDB, the bundled model (S1–S7)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from biny.core.cli import main
from biny.core.config import Settings
from biny.core.engine import Engine
from biny.core.services.structured import NoIndex
from biny.core.text.units import units_of
from tests.conftest import ROOT, CountingEmbedder, corpus
from tests.core.test_answers import ScriptedModel, scripted_model

ROWS = 60


def _books_csv(path: Path, rows: int = ROWS, edit: dict[int, dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The first goodbooks rows, plus a "note" column filled on 5 rows (under 1/5: to be dropped)."""
    with corpus("goodbooks10k", "books.csv").open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        data = [dict(r) for _, r in zip(range(rows), reader, strict=False)]
        names = [*(reader.fieldnames or []), "note"]
    for i, r in enumerate(data):
        r["note"] = "signed copy" if i % 12 == 0 else ""
        r.update((edit or {}).get(i, {}))
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=names)
        w.writeheader()
        w.writerows(data)
    return data


def _product_pages(folder: Path, n: int = 30) -> list[dict[str, str]]:
    """Products as Markdown pages whose first lines are a header, the description below."""
    folder.mkdir()
    with corpus("amazon_products", "test_sample_1000.csv").open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Category"] and r["Selling Price"].startswith("$")][:n]
    for i, r in enumerate(rows):
        head = "\n".join(f"{k}: {' '.join(r[k].split())}" for k in ("Product Name", "Selling Price", "Category",
                                                                      "Product Url"))
        (folder / f"p{i:02d}.md").write_text(f"{head}\n\n{' '.join(r['About Product'].split())}\n", encoding="utf-8")
    return rows


@pytest.fixture(scope="module")
def eng(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("structured")
    engine = Engine.open(home / "home", settings=Settings(), embedder=CountingEmbedder())
    engine.create_space("books")  # encrypted: the default
    _books_csv(home / "books.csv")
    assert engine.ingest("books", [home / "books.csv"]).ok
    engine.create_space("prose", encrypted=False)
    assert engine.ingest("prose", [ROOT / "resources" / "demo" / "handbook.md",
                                   ROOT / "resources" / "demo" / "service_agreement.md"]).ok
    yield engine
    engine.close()


def _text(eng: Engine, space: str, doc_id: str) -> str:
    text = ""
    for c in eng.document_chunks(space, doc_id):
        text = text[: c.char_start].ljust(c.char_start) + c.text if c.char_start + len(c.text) > len(text) else text
    return text


def test_a_table_ingests_one_document_per_row_titled_by_its_title_field(eng: Engine) -> None:
    docs = eng.documents("books")
    assert len(docs) == ROWS and {d.kind for d in docs} == {"row"}
    hunger = next(d for d in docs if d.title.startswith("The Hunger Games"))
    text = _text(eng, "books", hunger.doc_id)
    assert "authors: Suzanne Collins" in text and "image_url: https://images.gr-assets.com" in text


def test_the_proposal_keeps_the_real_fields_and_drops_a_rare_one_with_its_figure(eng: Engine) -> None:
    proposal = eng.index.propose("books")
    fields = {f.name: f for f in proposal.fields}
    assert proposal.documents == ROWS and proposal.title_field == "title"
    for name, kind in {"authors": "list", "original_publication_year": "year", "average_rating": "number",
                       "image_url": "url", "ratings_count": "integer", "language_code": "text"}.items():
        assert fields[name].kept and fields[name].type == kind, name
    note = fields["note"]
    assert not note.kept and note.coverage == pytest.approx(5 / ROWS) and "under 1/5" in str(note.reason)
    assert note.examples == ["signed copy"]


def test_build_embeds_nothing_values_are_verbatim_and_encrypted_values_are_sealed(eng: Engine) -> None:
    embedder = eng.models.embedder.inner  # the runtime behind the one-written-form wrapper (core/embed/han.py)
    assert isinstance(embedder, CountingEmbedder)
    before = embedder.passages_embedded
    info = eng.index.build("books", exact=["IMAGE_URL", "isbn"])
    assert embedder.passages_embedded == before and info.embedded == 0
    assert info.rows == ROWS and {f.name for f in info.spec.fields if f.exact} == {"image_url", "isbn"}
    assert "note" not in info.spec.names
    shown = eng.index.info("books", preview=ROWS)
    assert shown is not None
    for row in shown.preview:  # every value is a slice of its own document's stored text
        text = _text(eng, "books", row["doc_id"])
        for name, value in row["fields"].items():
            assert value is None or f"{name}: {value}" in text
    # S3 in an encrypted space: no value of the index is plaintext anywhere in the data folder.
    url = next(r["fields"]["image_url"] for r in shown.preview if r["title"].startswith("The Hunger Games"))
    for path in eng.home.rglob("*"):
        if path.is_file():
            assert url.encode() not in path.read_bytes(), path


def test_archive_delete_and_reingest_keep_the_table_in_step(eng: Engine, tmp_path: Path) -> None:
    if eng.index.info("books") is None:
        eng.index.build("books")
    q = "How many books by J.K. Rowling are there?"
    before = eng.ask("books", q).structured
    assert before is not None and before.result >= 2
    assert before.call.conditions[0].value == ["J.K. Rowling"]
    king = before.rows[0]["doc_id"]
    eng.set_document_status("books", king, "archived")
    after = eng.ask("books", q).structured
    assert after is not None and after.result == before.result - 1
    eng.set_document_status("books", king, "active")
    assert eng.ask("books", q).structured.result == before.result  # type: ignore[union-attr]
    # One row edited in the source: only that row is embedded again, and the index follows.
    embedder = eng.models.embedder.inner  # the runtime behind the one-written-form wrapper (core/embed/han.py)
    assert isinstance(embedder, CountingEmbedder)
    path = tmp_path / "books.csv"
    data = _books_csv(path, edit={0: {"authors": "J.K. Rowling"}})
    n = embedder.passages_embedded
    # Same file name as the module's: ingest from the module folder so the rows share their prefix.
    src = next(Path(d.path.split("#")[0]) for d in eng.documents("books"))
    src.write_bytes(path.read_bytes())
    report = eng.ingest("books", [src])
    assert report.ok and "1 rows ingested" in report.files[0].message
    # Its passage, and the sentences of it the answer reads (issue 57: made with the passage).
    row = eng.catalog.spaces.named("books")
    doc = next(d for d in eng.documents("books") if d.title == data[0]["title"] and d.status == "active")
    crypto = eng._retriever.keys.crypto(row)
    [passage] = [crypto.open_record(r).text for r in eng.chunks.doc_chunks(row.space_id, doc.doc_id)]
    assert embedder.passages_embedded - n == 1 + len(units_of(passage))
    assert eng.ask("books", q).structured.result == before.result + 1  # type: ignore[union-attr]
    assert data[0]["title"] in eng.ask("books", "Which books did J.K. Rowling write?").structured.result  # type: ignore[union-attr]
    # A name the index does not hold is not counted as "all books": it goes to retrieval.
    assert eng.ask("books", "How many books by Stephen King are there?").structured is None


def test_prose_gets_no_index_and_says_why(eng: Engine) -> None:
    proposal = eng.index.propose("prose")
    assert not proposal.kept and "No index" in str(proposal.reason)
    with pytest.raises(NoIndex, match="machine-readable header"):
        eng.index.build("prose")
    assert eng.ask("prose", "How many days of notice are needed?").structured is None


def test_pages_with_a_header_are_indexed_too(eng: Engine, tmp_path: Path) -> None:
    rows = _product_pages(tmp_path / "pages")
    eng.create_space("pages", encrypted=False)
    assert eng.ingest("pages", [tmp_path / "pages"]).ok
    info = eng.index.build("pages", exact=["Product Url"])
    assert info.rows == len(rows) and info.spec.get("Selling Price").type == "money"  # type: ignore[union-attr]
    under = sum(float(r["Selling Price"].lstrip("$").split()[0].replace(",", "")) < 20 for r in rows)
    result = eng.ask("pages", "How many products cost less than $20?").structured
    assert result is not None and result.result == under
    named = rows[3]
    link = eng.ask("pages", f"Send me the link of {named['Product Name']}")
    assert link.structured is not None and link.structured.result == named["Product Url"]
    answered = eng.answer("pages", f"Send me the link of {named['Product Name']}")
    assert answered.answer is not None and answered.answer.mode == "structured"
    assert named["Product Url"] in answered.answer.text


def _pages_three_ways(folder: Path) -> list[dict[str, str]]:
    """The same products as pages three ways: "Key: value" lines, Markdown bullets with bold names, and Chinese
    field names; "Product Dimensions" / 尺寸 only on the few products that have it (a rare field)."""
    with corpus("amazon_products", "test_sample_1000.csv").open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Category"] and r["Selling Price"].startswith("$")
                and "-" not in r["Selling Price"]][:36]
    folder.mkdir()
    for i, r in enumerate(rows):
        name, top = " ".join(r["Product Name"].split()), r["Category"].split("|")[0].strip()
        dims = [("Product Dimensions", r["Product Dimensions"].strip())] if i % 9 == 0 else []
        fields = [("Category", top), ("Price", r["Selling Price"]), *dims, ("Link", r["Product Url"])]
        if i % 3 == 0:
            text = "\n".join(f"{k}: {v}" for k, v in [("Name", name), *fields]) + "\n\nAbout.\n"
        elif i % 3 == 1:
            text = f"# {name}\n\n" + "\n".join(f"- **{k}:** {v}" for k, v in fields) + "\n\nAbout.\n"
        else:
            zh = {"Category": "类别", "Price": "价格", "Product Dimensions": "尺寸", "Link": "链接"}
            text = f"# {name}\n\n" + "\n".join(f"{zh[k]}：{v}" for k, v in fields) + "\n\n简介。\n"
        (folder / f"p{i:02d}.md").write_text(text, encoding="utf-8")
    return rows


def test_page_collections_count_what_they_say_and_name_the_filter_and_the_documents_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 48: pages that open with a header, in three written forms, counted right in English and Chinese."""
    home = tmp_path / "home"
    eng = Engine.open(home, settings=Settings(), embedder=CountingEmbedder())
    try:
        rows = _pages_three_ways(tmp_path / "pages")
        eng.create_space("shop", encrypted=False)
        assert eng.ingest("shop", [tmp_path / "pages"]).ok
        # One index over all pages: the English ones (both forms) name their fields in English, the Chinese ones
        # in Chinese — each name kept, as it is in a third of the pages or more.
        proposal = eng.index.propose("shop")
        assert {"Category", "Price", "Link"} <= {f.name for f in proposal.kept}
        assert "Product Dimensions" in {f.name for f in proposal.fields if not f.kept}  # rare: 1/5 rule
        eng.index.build("shop", exact=["Link"])
        english = [r for i, r in enumerate(rows) if i % 3 != 2]
        top = english[0]["Category"].split("|")[0].strip()
        want = sum(r["Category"].split("|")[0].strip() == top for r in english)
        result = eng.answer("shop", f"How many products are in the category {top}?")
        assert result.structured is not None and result.structured.result == want
        assert result.answer is not None and f"{want} of the {len(rows)} documents" in result.answer.text
        assert f"Category is {top}" in result.answer.text
        # The Chinese pages have no "Category": they are named as not counted, not silently left out.
        assert f"{len(rows) - len(english)} give no Category" in result.answer.text
        zh = [r for i, r in enumerate(rows) if i % 3 == 2]
        cheap = sum(float(r["Selling Price"].lstrip("$").replace(",", "")) < 15 for r in zh)
        asked = eng.answer("shop", "价格低于15美元的商品有多少个？")
        assert asked.structured is not None and asked.structured.result == cheap
        assert asked.answer is not None and asked.answer.text.startswith("索引的") and "价格" in asked.answer.text
        # Not answerable exactly (the rare field is not in the index): retrieval, never a wrong count.
        assert eng.ask("shop", "How many products state their product dimensions?").structured is None
    finally:
        eng.close()
    assert main(["--home", str(home), "ask", f"How many products are in the category {top}?", "--space", "shop",
                 "--json"]) == 0
    s = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["structured"]
    assert s["result"] == want and s["filter"] == f"Category is {top}"
    assert s["counted_over"] == len(rows) and s["documents"] == len(rows) and s["lacking"] == {"Category": len(zh)}


@pytest.fixture
def model(eng: Engine) -> Iterator[list[dict[str, Any]]]:
    with scripted_model(eng, lambda body: "It is a book [1].") as requests:
        yield requests


def test_exact_fields_reach_the_model_only_as_placeholders(eng: Engine, model: list[dict[str, Any]]) -> None:
    eng.index.build("books", exact=["isbn"])
    result = eng.answer("books", "Tell me about the novel The Hunger Games by Suzanne Collins")
    assert result.structured is None and result.chunks and model
    prompt = json.dumps(model[-1], ensure_ascii=False)
    isbns = [v["isbn"] for v in eng.index.exact_values("books", [h.doc_id for h in result.chunks]).values()]
    assert isbns and all(i not in prompt for i in isbns)
    assert "⟦L" in prompt


def test_cli_index_commands_and_the_structured_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    _books_csv(tmp_path / "books.csv", rows=25)

    def run(*args: str) -> Any:
        assert main(["--home", str(home), *args]) == 0
        return json.loads(capsys.readouterr().out.strip().splitlines()[-1])

    assert main(["--home", str(home), "space", "create", "b", "--unencrypted"]) == 0
    assert main(["--home", str(home), "ingest", str(tmp_path / "books.csv"), "--space", "b"]) == 0
    capsys.readouterr()
    proposed = run("index", "propose", "--space", "b", "--json")
    assert proposed["documents"] == 25
    assert {"name", "type", "coverage", "kept", "reason", "examples"} <= set(proposed["fields"][0])
    built = run("index", "build", "--space", "b", "--fields", "title,authors,original_publication_year,image_url",
                "--exact", "Image_URL", "--json")
    assert built["rows"] == 25 and built["embedded"] == 0 and len(built["fields"]) == 4
    shown = run("index", "show", "--space", "b", "--json")
    assert [f["name"] for f in shown["fields"]] == ["title", "authors", "original_publication_year", "image_url"]
    asked = run("ask", "How many books were published after 2000?", "--space", "b", "--json")
    s = asked["structured"]
    assert s["tool"] == "count" and isinstance(s["result"], int) and "SELECT count(*)" in s["query"]
    plain = run("ask", "What happens in the arena?", "--space", "b", "--json")
    assert plain["structured"] is None
    assert main(["--home", str(home), "index", "build", "--space", "b", "--fields", "nope"]) == 2
    assert "unknown field" in capsys.readouterr().err


def test_every_table_format_ingests_as_rows_and_a_damaged_one_fails_alone(eng: Engine, tmp_path: Path) -> None:
    import openpyxl

    (tmp_path / "semi.csv").write_text("Name;Price;Colour\nLamp;€12,50;red\nDesk;€89;oak\n", encoding="utf-8")
    (tmp_path / "tabs.tsv").write_text("title\tyear\nSolaris\t1961\n", encoding="utf-8")
    (tmp_path / "lines.jsonl").write_text('{"name": "Kettle", "tags": ["kitchen", "steel"]}\nnot json\n'
                                          '{"name": "Mug", "price": 4}\n', encoding="utf-8")
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["产品名称", "价格", "库存"])
    sheet.append(["保温杯", 59.0, 12])
    book.save(tmp_path / "sheet.xlsx")
    (tmp_path / "broken.xlsx").write_bytes(b"PK\x03\x04 this is not a workbook")
    eng.create_space("tables", encrypted=False)
    report = eng.ingest("tables", sorted(tmp_path.iterdir()))
    outcomes = {Path(f.path).name: f for f in report.files}
    assert outcomes["broken.xlsx"].outcome == "failed" and "broken.xlsx" in outcomes["broken.xlsx"].message
    assert {n for n, f in outcomes.items() if f.outcome == "ingested"} == {"semi.csv", "tabs.tsv", "lines.jsonl",
                                                                          "sheet.xlsx"}
    assert "1 malformed lines skipped" in outcomes["lines.jsonl"].message
    texts = {d.title: _text(eng, "tables", d.doc_id) for d in eng.documents("tables")}
    assert texts["Lamp"] == "Name: Lamp\nPrice: €12,50\nColour: red"
    assert texts["Solaris"] == "title: Solaris\nyear: 1961"
    assert texts["Kettle"] == "name: Kettle\ntags: kitchen, steel" and texts["Mug"] == "name: Mug\nprice: 4"
    assert texts["保温杯"] == "产品名称: 保温杯\n价格: 59\n库存: 12"
    # Deleting a row document takes it out of the index as well.
    info = eng.index.build("tables", fields=["Name", "Price"])
    assert info.rows == 2  # the two rows that carry Name or Price
    lamp = next(d.doc_id for d in eng.documents("tables") if d.title == "Lamp")
    eng.set_document_status("tables", lamp, "deleted")
    after = eng.index.info("tables", preview=5)
    assert after is not None and after.rows == 1 and [r["title"] for r in after.preview] == ["Desk"]


def test_a_table_added_again_from_another_folder_is_not_stored_twice(eng: Engine, tmp_path: Path) -> None:
    """Like a document ("same content as …"), a table's rows are stored once per space, whatever its folder."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _books_csv(first / "books.csv", rows=5)
    (second / "books.csv").write_bytes((first / "books.csv").read_bytes())
    for name, encrypted in (("twins", False), ("sealed twins", True)):
        eng.create_space(name, encrypted=encrypted)
        assert eng.ingest(name, [first / "books.csv"]).ok
        [again] = eng.ingest(name, [second / "books.csv"]).files
        assert again.outcome == "unchanged" and again.message == f"same content as {first / 'books.csv'}"
        assert len(eng.documents(name)) == 5
    # Some of its rows are not the table: a shorter file is its own and is stored.
    _books_csv(second / "books.csv", rows=3)
    [part] = eng.ingest("twins", [second / "books.csv"]).files
    assert part.outcome == "ingested" and "3 rows ingested" in part.message
    assert len(eng.documents("twins")) == 8


def test_a_model_maps_what_the_rules_cannot_and_its_json_is_validated(eng: Engine,
                                                                       model: list[dict[str, Any]]) -> None:
    if eng.index.info("books") is None or "image_url" not in eng.index.info("books").spec.exact_names:  # type: ignore[union-attr]
        eng.index.build("books", exact=["image_url", "isbn"])
    q = "Tally the titles that came out prior to 1900."  # no counting word the rules know
    years = [float(r["fields"]["original_publication_year"]) for r in eng.index.info("books", preview=ROWS).preview  # type: ignore[union-attr]
             if r["fields"].get("original_publication_year")]
    call = {"tool": "count", "conditions": [{"field": "original_publication_year", "op": "<", "value": 1900}]}
    ScriptedModel.respond = staticmethod(lambda body: "Sure:\n" + json.dumps(call))  # type: ignore[assignment]
    routed, result = eng.index.answer("books", q)
    assert result is not None and result.result == sum(y < 1900 for y in years)
    assert routed is not None and any("validated" in e for e in routed.evidence)
    prompt = model[-1]["messages"][-1]["content"]
    assert '"original_publication_year" (year)' in prompt and '"image_url" (url, exact)' in prompt
    shown = eng.index.info("books", preview=ROWS)
    assert shown is not None and not any(r["fields"]["image_url"] in prompt for r in shown.preview)  # S6
    for bad, why in (
        ({"tool": "count", "conditions": [{"field": "year; DROP TABLE idx", "op": "<", "value": 1}]}, "unknown field"),
        ({"tool": "count", "conditions": [{"field": "authors", "op": "LIKE", "value": "%"}]}, "unknown operator"),
        ({"tool": "top", "field": "authors"}, "numeric"),
        ({"tool": "lookup", "field": "isbn", "item": "A Book That Is Not There"}, "no row is titled"),
        ({"tool": "sql", "query": "SELECT 1"}, "unknown tool"),
    ):
        ScriptedModel.respond = staticmethod(lambda body, bad=bad: json.dumps(bad))  # type: ignore[assignment]
        routed, result = eng.index.answer("books", q)
        assert result is None and routed is not None and any(why in e for e in routed.evidence), bad
    # A question about content is never sent to the model for a tool call.
    before = len(model)
    ScriptedModel.respond = staticmethod(lambda body: "It is a book [1].")  # type: ignore[assignment]
    eng.index.answer("books", "What is the mood of the story?")
    assert len(model) == before
    ScriptedModel.mode = "500"  # a dead endpoint: not routed, no error
    routed, result = eng.index.answer("books", q)
    assert result is None and routed is not None and any("model not used" in e for e in routed.evidence)


def test_lint_lists_pages_of_bare_values_not_a_tables_rows(tmp_path: Path) -> None:
    """S7 names what a curator can fix: a page of "Key: value" lines only, not each row of a CSV (issue 49)."""
    eng = Engine.open(tmp_path / "home", settings=Settings(), embedder=CountingEmbedder())
    try:
        eng.create_space("mixed", encrypted=False)
        _books_csv(tmp_path / "books.csv", rows=12)
        (tmp_path / "kit.md").write_text("Reading level: 1\nAge: 5\nPieces: 24\n", encoding="utf-8")
        (tmp_path / "story.md").write_text("# Story\n\nA long tale told in words about a kit for children.\n",
                                           encoding="utf-8")
        assert eng.ingest("mixed", [tmp_path / "books.csv", tmp_path / "kit.md", tmp_path / "story.md"]).ok
        count, items = eng.index.lint("mixed")
        assert count == 1 and [i.title for i in items] == ["kit"]
        assert items[0].suggestion == "kit: its Reading level is 1; its Age is 5; its Pieces is 24."
    finally:
        eng.close()


def test_a_structured_answer_looks_its_space_up_once(eng: Engine, space_lookups: list[str]) -> None:
    """Issue 56: routing, the index's call and the row's own passage read the row the ask resolved."""
    if eng.index.info("books") is None:
        eng.index.build("books", exact=["IMAGE_URL", "isbn"])
    looked_up = space_lookups
    looked_up.clear()
    result = eng.answer("books", "Who wrote The Hunger Games?")
    assert result.structured is not None and result.structured.call.tool == "lookup"
    assert result.answer is not None and result.answer.mode == "structured" and result.answer.citations
    assert looked_up == ["books"]
