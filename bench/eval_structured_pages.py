"""Structured index over documents that open with a "Key: value" header (issue 48; SPEC S1, S5, S6).

Run: ``python bench/eval_structured_pages.py [--home bench-data/pages] [--stand-in-embedder]``.

Three page collections are written from the shared corpora into ``<home>/pages`` and ingested once:
- ``pages-en``: Markdown product pages from the product sample (Name, Category breadcrumb, Price, Model Number,
  Shipping Weight, Link; "Product Dimensions" on the few products that have it — a rare field);
- ``pages-md``: other products, the header written the Markdown way (``# Name``, then ``- **Price:** $12.99``);
- ``pages-zh``: the same kind of page with Chinese field names and Chinese top-level categories
  (名称 / 类别 / 价格 / 型号 / 链接);
- ``peps``: the PEP sources as they are (PEP / Title / Author / Status / Type / Created …; "Replaces" rare).

The gold answers are computed here from the values written into the pages (products) or from the PEP files' own
header lines, by this script's own reading — never by the index under test. Reported per collection, language
and kind (count / filter / group / top / lookup): accuracy, mispaired exact values (an exact field's value that is
not the named document's own, SPEC S6) and the misses.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT / "bench"))
CORPORA = ROOT.parent / "shared" / "corpora"
PRODUCTS = CORPORA / "amazon_products" / "test_sample_1000.csv"
PEPS = CORPORA / "python_peps"

from eval_structured import Gold, StandInEmbedder, evaluate  # noqa: E402

from biny.core.engine import Engine  # noqa: E402

# Top-level categories of the product sample, in Chinese (for the Chinese pages).
ZH_CATEGORY = {
    "Toys & Games": "玩具游戏", "Clothing, Shoes & Jewelry": "服装鞋履", "Home & Kitchen": "家居厨房",
    "Sports & Outdoors": "运动户外", "Baby Products": "母婴用品", "Arts, Crafts & Sewing": "手工艺品",
    "Office Products": "办公用品", "Video Games": "电子游戏", "Grocery & Gourmet Food": "食品杂货",
    "Patio, Lawn & Garden": "庭院园艺", "Tools & Home Improvement": "工具装修",
    "Remote & App Controlled Vehicle Parts": "遥控车配件", "Hobbies": "兴趣爱好", "Pet Supplies": "宠物用品",
    "Electronics": "电子产品", "Health & Household": "健康家居", "Industrial & Scientific": "工业科学",
    "Beauty & Personal Care": "美容护理", "Remote & App Controlled Vehicles & Parts": "遥控车",
}


@dataclass
class Product:
    file: str
    name: str
    category: list[str]  # the breadcrumb (en) or one Chinese category (zh)
    price: float
    price_text: str
    model: str
    url: str
    dimensions: str


def _products(n: int, skip: int) -> list[dict[str, str]]:
    rows = [r for r in csv.DictReader(PRODUCTS.open(encoding="utf-8")) if r["Category"].strip()
            and re.fullmatch(r"\$[0-9.,]+", r["Selling Price"].strip())]
    names = Counter(" ".join(r["Product Name"].split()) for r in rows)
    rows = [r for r in rows if names[" ".join(r["Product Name"].split())] == 1]
    return rows[skip : skip + n]


def _markdown(head: list[str], name: str, about: str) -> str:
    """The same header as a Markdown page writes it: a title, then bold names in a bullet list."""
    lines = [f"- **{k}:** {v}" for k, _, v in (h.partition(": ") for h in head) if k != "Name"]
    return f"# {name}\n\n" + "\n".join(lines) + f"\n\n## About\n\n{about}\n"


def write_products(out: Path, lang: str, n: int, skip: int, style: str = "plain") -> list[Product]:
    out.mkdir(parents=True, exist_ok=True)
    made: list[Product] = []
    for i, r in enumerate(_products(n, skip)):
        name = " ".join(r["Product Name"].split())
        crumbs = [c.strip() for c in r["Category"].split("|") if c.strip()]
        price_text = r["Selling Price"].strip()
        model = r["Model Number"].strip()
        dims = " ".join(r["Product Dimensions"].split())
        about = " ".join(r["About Product"].replace("|", " ").split())[:600]
        if lang == "en":
            category = crumbs
            head = [f"Name: {name}", f"Category: {' | '.join(crumbs)}", f"Price: {price_text}"]
            head += [f"Model Number: {model}"] if model else []
            head += [f"Shipping Weight: {r['Shipping Weight'].strip()}"] if r["Shipping Weight"].strip() else []
            head += [f"Product Dimensions: {dims}"] if dims else []
            head += [f"Link: {r['Product Url'].strip()}"]
            body = f"# {name}\n\n{about}\n"
            if style == "markdown":
                head, body = [], _markdown(head, name, about)
        else:
            category = [ZH_CATEGORY[crumbs[0]]]
            head = [f"名称：{name}", f"类别：{category[0]}", f"价格：{price_text}"]
            head += [f"型号：{model}"] if model else []
            head += [f"尺寸：{dims}"] if dims else []
            head += [f"链接：{r['Product Url'].strip()}"]
            body = f"# {name}\n\n这是一件{category[0]}类商品，售价{price_text}。{about[:200]}\n"
        file = f"product-{lang}-{i:03d}.md"
        (out / file).write_text(("\n".join(head) + "\n\n" if head else "") + body, encoding="utf-8")
        made.append(Product(file, name, category, float(price_text[1:].replace(",", "")), price_text, model,
                            r["Product Url"].strip(), dims))
    return made


def _winners(pairs: list[tuple[Any, Any]], reverse: bool) -> set[Any]:
    pairs = sorted(pairs, key=lambda p: p[1], reverse=reverse)
    return {p[0] for p in pairs if p[1] == pairs[0][1]} if pairs else set()


def products_gold(ps: list[Product], lang: str, rng: random.Random) -> list[Gold]:
    out: list[Gold] = []
    zh = lang == "zh"
    cats = Counter(c for p in ps for c in p.category)
    common = [c for c, n in cats.items() if n >= 4]
    for c in rng.sample(common, min(6, len(common))):
        n = sum(c in p.category for p in ps)
        q = f"{c}类的商品有多少个？" if zh else f"How many products are in the category {c}?"
        out.append(Gold(lang, "count", q, lambda r, n=n: r == n, expected=n))
        q2 = f"有几件{c}商品？" if zh else f"How many {c} products are there?"
        out.append(Gold(lang, "count", q2, lambda r, n=n: r == n, expected=n))
        q3 = f"{c}类别下一共有多少件商品？" if zh else f"Count the products in the {c} category."
        out.append(Gold(lang, "count", q3, lambda r, n=n: r == n, expected=n))
        cheap = _winners([(p.name, p.price) for p in ps if c in p.category], reverse=False)
        q = f"{c}类中最便宜的商品是哪个？" if zh else f"What is the cheapest product in {c}?"
        out.append(Gold(lang, "top", q, lambda r, w=cheap: r in w, expected=sorted(cheap)))
    for limit in (5, 10, 20, 50):
        n = sum(p.price < limit for p in ps)
        q = f"价格低于{limit}美元的商品有多少个？" if zh else f"How many products cost less than ${limit}?"
        out.append(Gold(lang, "count", q, lambda r, n=n: r == n, expected=n))
    for a, b in ((10, 12), (30, 40), (100, 200)):
        want = {p.name for p in ps if a <= p.price <= b}
        if 0 < len(want) <= 50:
            q = f"价格在{a}到{b}美元之间的商品有哪些？" if zh else f"Which products cost between ${a} and ${b}?"
            out.append(Gold(lang, "filter", q, lambda r, w=want: isinstance(r, list) and set(r) == w,
                            expected=sorted(want)))
    for c in rng.sample(common, min(3, len(common))):
        want = {p.name for p in ps if c in p.category and p.price < 15}
        if 0 < len(want) <= 50:
            q = f"列出{c}类中价格低于15美元的商品。" if zh else f"List the {c} products that cost less than $15."
            out.append(Gold(lang, "filter", q, lambda r, w=want: isinstance(r, list) and set(r) == w,
                            expected=sorted(want)))
    # Not answerable exactly: the rare field was left out of the index (under 1/5 of pages) — retrieval's.
    q = "有多少商品标明了尺寸？" if zh else "How many products state their product dimensions?"
    out.append(Gold(lang, "to retrieval", q, lambda r: False, expected="not routed"))
    top = {c for c, n in cats.items() if n == max(cats.values())}
    q = "哪个类别的商品最多？" if zh else "Which category has the most products?"
    out.append(Gold(lang, "group", q, lambda r, w=top: r in w, expected=sorted(top)))
    dear = _winners([(p.name, p.price) for p in ps], reverse=True)
    q = "最贵的商品是哪个？" if zh else "What is the most expensive product?"
    out.append(Gold(lang, "top", q, lambda r, w=dear: r in w, expected=sorted(dear)))
    cheap = _winners([(p.name, p.price) for p in ps], reverse=False)
    q = "最便宜的商品是哪个？" if zh else "Which product is the cheapest?"
    out.append(Gold(lang, "top", q, lambda r, w=cheap: r in w, expected=sorted(cheap)))
    for p in rng.sample([p for p in ps if p.model], 8):
        if zh:
            qs = [(f"“{p.name}”的价格是多少？", p.price_text, None), (f"请把“{p.name}”的链接发给我", p.url, p.url),
                  (f"“{p.name}”的型号是什么？", p.model, p.model)]
        else:
            qs = [(f"What is the price of {p.name}?", p.price_text, None),
                  (f"Send me the link of {p.name}", p.url, p.url),
                  (f"What is the model number of {p.name}?", p.model, p.model)]
        for q, want, exact in qs:
            out.append(Gold(lang, "lookup", q, lambda r, v=want: str(r) == v or _same_number(r, v),
                            exact_value=exact, expected=want))
    return out


def _same_number(got: Any, want: str) -> bool:
    try:
        return float(str(got).replace("$", "").replace(",", "")) == float(want.replace("$", "").replace(",", ""))
    except ValueError:
        return False


@dataclass
class Pep:
    number: int
    title: str
    authors: str
    status: str
    type: str
    created: datetime
    topic: str


def peps() -> list[Pep]:
    """Each PEP's header read here, line by line (RFC 822: continuation lines start with a space)."""
    out: list[Pep] = []
    for f in sorted(PEPS.glob("pep-*.rst")):
        head: dict[str, str] = {}
        last = ""
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                break
            if line[:1] in " \t" and last:
                head[last] += " " + line.strip()
                continue
            k, _, v = line.partition(":")
            last = k.strip()
            head.setdefault(last, v.strip())
        out.append(Pep(int(head["PEP"]), head["Title"], head["Author"], head["Status"], head["Type"],
                       datetime.strptime(head["Created"], "%d-%b-%Y"), head.get("Topic", "")))
    return out


def peps_gold(ps: list[Pep], rng: random.Random) -> list[Gold]:
    out: list[Gold] = []
    for status in sorted({p.status for p in ps}):
        n = sum(p.status == status for p in ps)
        out.append(Gold("en", "count", f"How many PEPs have the status {status}?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"状态为{status}的PEP有多少个？", lambda r, n=n: r == n, expected=n))
    for typ in sorted({p.type for p in ps}):
        n = sum(p.type == typ for p in ps)
        out.append(Gold("en", "count", f"How many {typ} PEPs are there?", lambda r, n=n: r == n, expected=n))
        out.append(Gold("zh", "count", f"类型为{typ}的PEP有几个？", lambda r, n=n: r == n, expected=n))
    for year in (2005, 2015, 2020):
        n = sum(p.created.year < year for p in ps)
        out.append(Gold("en", "count", f"How many PEPs were created before {year}?", lambda r, n=n: r == n,
                        expected=n))
        out.append(Gold("zh", "count", f"{year}年以前创建的PEP有多少个？", lambda r, n=n: r == n, expected=n))
    topics = Counter(p.topic for p in ps if p.topic)
    for topic in [t for t, n in topics.items() if 2 <= n <= 20]:
        want = {p.title for p in ps if p.topic == topic}
        out.append(Gold("en", "filter", f"Which PEPs have the topic {topic}?",
                        lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
        out.append(Gold("zh", "filter", f"主题为{topic}的PEP有哪些？",
                        lambda r, w=want: isinstance(r, list) and set(r) == w, expected=sorted(want)))
    common = {s for s, n in Counter(p.status for p in ps).items() if n == max(Counter(p.status for p in ps).values())}
    out.append(Gold("en", "group", "Which status do most PEPs have?", lambda r, w=common: r in w,
                    expected=sorted(common)))
    out.append(Gold("zh", "group", "哪种状态的PEP最多？", lambda r, w=common: r in w, expected=sorted(common)))
    oldest = _winners([(p.title, p.created) for p in ps], reverse=False)
    newest = _winners([(p.title, p.created) for p in ps], reverse=True)
    out += [Gold("en", "top", "Which PEP was created first?", lambda r, w=oldest: r in w, expected=sorted(oldest)),
            Gold("zh", "top", "最早创建的PEP是哪个？", lambda r, w=oldest: r in w, expected=sorted(oldest)),
            Gold("en", "top", "What is the most recently created PEP?", lambda r, w=newest: r in w,
                 expected=sorted(newest)),
            Gold("zh", "top", "最新创建的PEP是哪个？", lambda r, w=newest: r in w, expected=sorted(newest))]
    for p in rng.sample(ps, 8):
        for lang, q, want in (("en", f"What is the status of PEP {p.number}?", p.status),
                              ("zh", f"PEP {p.number}的状态是什么？", p.status),
                              ("en", f"What is the title of PEP {p.number}?", p.title),
                              ("zh", f"PEP {p.number}的标题是什么？", p.title)):
            out.append(Gold(lang, "lookup", q, lambda r, v=want: r == v, expected=want))
    return out


def _ensure(engine: Engine, space: str, files: list[Path]) -> None:
    if space not in {s.name for s in engine.spaces()}:
        engine.create_space(space, encrypted=False)
    if not engine.documents(space):
        print(f"ingesting {len(files)} pages into {space!r}…", flush=True)
        report = engine.ingest(space, files)
        print(f"  {len(report.files)} files in {report.seconds:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=ROOT / "bench-data" / "pages")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--stand-in-embedder", action="store_true",
                    help="ingest with hashed vectors (the structured path never reads them)")
    args = ap.parse_args()
    embedder = StandInEmbedder() if args.stand_in_embedder else None
    rng = random.Random(args.seed)
    pages = args.home / "pages"
    en = write_products(pages / "en", "en", 240, 0)
    zh = write_products(pages / "zh", "zh", 160, 300)
    pep_list = peps()
    md = write_products(pages / "md", "en", 200, 500, style="markdown")
    golds = {"pages-en": products_gold(en, "en", rng), "pages-md": products_gold(md, "en", rng),
             "pages-zh": products_gold(zh, "zh", rng), "peps": peps_gold(pep_list, rng)}
    files = {"pages-en": sorted((pages / "en").glob("*.md")), "pages-md": sorted((pages / "md").glob("*.md")),
             "pages-zh": sorted((pages / "zh").glob("*.md")), "peps": sorted(PEPS.glob("pep-*.rst"))}
    exact = {"pages-en": ["Link", "Model Number"], "pages-md": ["Link", "Model Number"], "pages-zh": ["链接", "型号"],
             "peps": []}
    with Engine.open(args.home, embedder=embedder) as engine:  # type: ignore[arg-type]
        results = {}
        for space, gold in golds.items():
            _ensure(engine, space, files[space])
            proposal = engine.index.propose(space)
            print(f"{space}: proposed {[(f.name, f.type, f.kept) for f in proposal.fields]} "
                  f"title {proposal.title_field!r}", flush=True)
            engine.index.build(space, exact=exact[space])
            results[space] = evaluate(engine, space, gold)
    print("\n## Structured index over pages with a header — gold from the pages' own values\n")
    print("| collection | lang | kind | questions | correct | accuracy |\n|---|---|---|---:|---:|---:|")
    kinds: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for space, res in results.items():
        for (lang, tool), oks in sorted(res["per"].items()):
            kinds[(lang, tool)] += oks
            print(f"| {space} | {lang} | {tool} | {len(oks)} | {sum(oks)} | {sum(oks) / len(oks):.3f} |")
    for (lang, tool), oks in sorted(kinds.items()):
        share = sum(oks) / len(oks)
        print(f"| **all** | **{lang}** | **{tool}** | **{len(oks)}** | **{sum(oks)}** | **{share:.3f}** |")
    print(f"\nmispaired exact values: {sum(r['mispaired'] for r in results.values())}")
    misses = [m for r in results.values() for m in r["misses"]]
    if misses:
        print("\nmisses:\n" + "\n".join(misses))


if __name__ == "__main__":
    main()
