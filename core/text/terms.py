"""Terms: what the string checks of R3 and the lexical rerank look at.

Computed from plaintext once, at ingest, and stored beside each chunk, so retrieval
can ask "is this term present?" of every candidate without reading (or decrypting)
chunk text (R7). Terms are normalised tokens: lowercased words for alphabetic
scripts, character bigrams for CJK runs. Stage-neutral: ingest and retrieval both
import this module.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Container

from biny.core.crypto.blind import on_forget
from biny.core.text.common_words import own_language_word

_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def _mark_class() -> str:
    """A character class of the combining marks (category M) of the Basic Multilingual Plane, as ranges."""
    marks = [c for c in range(0x10000) if unicodedata.category(chr(c)).startswith("M")]
    ranges: list[tuple[int, int]] = []
    for c in marks:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1] = (ranges[-1][0], c)
        else:
            ranges.append((c, c))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


# A word is letters and digits *with their combining marks*: Devanagari, Bengali, Tamil … write vowels as marks
# (category M), which ``\w`` does not match — without them "विश्वविद्यालय" fell apart into व, श, वव … and
# those fragments, found in every Hindi passage, made any Hindi question look answered (issue 20).
_LETTER = rf"(?:[^\W_]|[{_mark_class()}])"
_WORD = re.compile(rf"{_LETTER}+(?:['’]{_LETTER}+)?", re.UNICODE)
# Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer): no dictionary here to find the
# words, so a run is indexed as overlapping character 4-grams — n-grams being the language-independent choice
# for text without word boundaries (McNamee & Mayfield 2004), as CJK runs are indexed as bigrams. Thai
# syllables run 2–4 characters: measured on XQuAD Thai (bench/README.md), trigrams recur across passages and
# let 94 % of questions about missing articles through, 5-grams lose answers (−4 points), 4-grams do neither.
_UNSPACED_RUN = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+")
UNSPACED_GRAM = 4
# Inflecting languages write one word in many forms (Russian "элемент", "элемента", "элементом"; German
# compounds "Schießpulver…"); a passage answering a question rarely repeats its exact forms. Words of this
# many letters or more are also indexed by their first this-many letters, marked with STEM_MARK — truncation,
# which in multilingual retrieval does about as well as a per-language stemmer and needs no language
# detection (McNamee & Mayfield 2004, "trunc5").
STEM_LEN = 5
STEM_MARK = "~"

STOPWORDS = frozenset(
    """a an the of to in on at by for from with and or not no is are was were be been being do does did
    what which who whom whose when where why how this that these those it its i you he she we they me my your
    our their there here can could should would will shall may might must about into than then so if as
    der die das ein eine und oder nicht ist sind war wie was wer wo wann warum mit von zu im am den dem des
    le la les un une des et ou est sont qui que quoi comment pour dans sur avec du au aux
    el los las unos unas y o es son que qué cómo para con por del al en
    и в во на с со по к о об из за от до для не ни что кто где когда как какой какая какое какие каком
    какого каких почему зачем сколько который которая которое которые это этот эта эти был была было были""".split()
) | frozenset(
    # Question words of the other languages of the bundled reference questions (issue 20). A question word is
    # rare in the declarative text that answers it, so it took one of the largest weights of the question and held
    # the answer's word share down (Arabic "ماذا", Hindi "किसने"); the function words beside them weigh little.
    # German, French, Spanish, Vietnamese — written with their marks, so that no English word is among them:
    """welche welcher welches welchem welchen wieviel wieviele wem wen wessen woher wohin womit wofür
    quel quelle quels quelles où quand pourquoi combien lequel laquelle lesquels
    cuál cuáles cuándo dónde quién quiénes cuánto cuánta cuántos cuántas cuyo cuya
    gì nào đâu là của và các những được trong với không này đó ở đã có cho một""".split()
) | frozenset(
    # Arabic (as stored: no vowel points; the hamza forms written both ways) and Hindi.
    """ما ماذا من متى أين اين كيف لماذا كم هل أي اي هو هي الذي التي الذين في على إلى الى عن مع أن ان إن كان
    كانت تم هذا هذه ذلك تلك أو او لم لا قد
    क्या कौन कौनसा कौनसी कौनसे किस किसे किसने किसको किसका किसकी किसके कब कहाँ कहां कैसे क्यों कितना कितनी
    कितने है हैं था थे थी का की के में से को ने पर और एक यह वह""".split()
) | frozenset(
    # Question words of CJK scripts, as bigrams (the form they are stored and matched in):
    # like "what"/"who" above they mark the question, not its topic, and declarative text
    # rarely has them — so they would count as words the space does not know.
    """什么 为什 怎么 怎样 哪些 哪个 哪里 哪儿 哪一 多少 如何 何时 是否 是谁
    どこ いつ だれ なに なぜ どの どう どれ すか
    무엇 어디 언제 누가 어떻 떻게 얼마""".split()
)


# Vowel points written only sometimes: Arabic harakat and tatweel, Hebrew niqqud. "مؤلَّفات" and "مؤلفات" are one
# word; a question written with them must still meet a passage written without (issue 20).
_OPTIONAL_MARKS = re.compile(r"[\u064b-\u065f\u0670\u0640\u0591-\u05c7]")


# Digits of every script as 0–9: Arabic-Indic "١٩٣٩", Devanagari "१९३९" and Thai "๑๙๓๙" are the year 1939 written
# in Latin digits elsewhere (NFKC folds only full-width ones) — numbers are evidence across scripts (issue 20).
_DIGITS = {c: str(unicodedata.digit(chr(c))) for c in range(0x80, 0x10000) if unicodedata.category(chr(c)) == "Nd"}


_HAN_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def fold(text: str) -> str:
    """NFKC, lower case, digits as 0–9, Chinese characters in their simplified form and no optional vowel points:
    the form terms are stored and compared in."""
    text = unicodedata.normalize("NFKC", text).lower().translate(_DIGITS)
    if _HAN_CHAR.search(text):
        text = simplified(text)
    return _OPTIONAL_MARKS.sub("", text)


def simplified(text: str) -> str:
    """Traditional Chinese characters as simplified ones (OpenCC's t2s: characters, and phrases where a character
    maps to several). A question written in Traditional characters over Simplified material shares few of its
    bigrams with the answer: measured on XQuAD zh (8 articles, 225 questions, bench/README.md), answers 0.98
    as written, 0.48 when the same questions were written in Traditional characters."""
    convert = _t2s()
    return convert(text) if convert is not None else text


@functools.cache
def _t2s() -> Callable[[str], str] | None:
    try:
        import opencc
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        converter = opencc.OpenCC("t2s")
    except (RuntimeError, ValueError, OSError):  # a damaged install: text is compared as written
        return None
    convert: Callable[[str], str] = converter.convert
    return convert


def terms_of(text: str) -> set[str]:
    """Normalised term set of a text (words and CJK bigrams)."""
    text = fold(text)
    out: set[str] = set()
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            out.add(run)
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    for run in _UNSPACED_RUN.findall(text):
        n = UNSPACED_GRAM
        out.update([run] if len(run) <= n else (run[i : i + n] for i in range(len(run) - n + 1)))
    latin = _UNSPACED_RUN.sub(" ", _CJK_RUN.sub(" ", text))
    for w in _WORD.findall(latin):
        if len(w) >= 2 or w.isdigit():
            out.add(w)
        if "'" in w or "’" in w:
            # "BSkyB's", "l'homme", "o'clock": the word is also found by its parts — a question naming BSkyB
            # meets the passage about BSkyB's services (measured: lost answers of Chinese questions over English).
            out.update(part for part in re.split("['’]", w) if len(part) >= 2)
    out.update(syllable_pairs(latin))
    return out


# Vietnamese writes a word as syllables separated by spaces ("thành phố", "điện thoại"): its syllables recur in any
# Vietnamese text, so word shares said little (other articles of one encyclopedia kept passages 3 times in 4). Two
# adjacent syllables are also a term, as two adjacent Chinese characters are. A run of words is Vietnamese when one
# of its letters is one only Vietnamese writes (đ, ơ, ư and the stacked tones: not French "ê", Romanian "ă") — no
# language detection needed.
_VI_LETTER = re.compile(r"[đơư\u1ea0-\u1ef9]")
_SYLLABLE_RUN = re.compile(rf"{_LETTER}+(?:[ \t]+{_LETTER}+)+")
SYLLABLE_MAX = 7  # letters: the longest Vietnamese syllable ("nghiêng") — longer words are not syllables


def syllable_pairs(text: str) -> set[str]:
    """Adjacent syllable pairs ("thành phố") of the Vietnamese runs of ``text`` (folded: lower case, NFKC), one
    space between them; a run ends at punctuation."""
    return {f"{a} {b}" for run in _SYLLABLE_RUN.findall(text) if _VI_LETTER.search(run)
            for a, b in itertools.pairwise(run.split()) if len(a) <= SYLLABLE_MAX and len(b) <= SYLLABLE_MAX}


# Arabic glues clitics onto both ends of a word ("بشأنها"/"بشأن", "مقالته"/"المقال", "بمستحثات"/"مستحثات"), so
# its first five letters often differ between two forms of one word; Hindi's short words end in suffixes
# truncation never reaches. Words of those scripts are stemmed by the Snowball stemmer of the language that
# writes them (``snowballstemmer``), then cut to ``STEM_LEN`` as every other stem is. Measured (issue 20,
# bench/README.md): ar→ar answers 0.900 → 0.920, hi→hi 0.950 → 0.965, refusal within one topic −1.7 and
# −1.2 points. Russian was measured too and keeps truncation: with Snowball's stems its answers were
# unchanged (0.930) and refusal fell (0.859 → 0.842). A Persian or Marathi word is stemmed the Arabic or Hindi
# way: wrongly, but alike in the question and the passage, which is all matching needs.
_SCRIPT_STEMMERS = ((re.compile(r"[\u0600-\u06ff]"), "arabic"), (re.compile(r"[\u0900-\u097f]"), "hindi"))
_SHORTEST_STEMMED = 3  # Arabic roots have three letters


@functools.cache
def _stemmer(language: str) -> Callable[[str], str]:
    import snowballstemmer

    return snowballstemmer.stemmer(language).stemWord  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=200_000)
def stem_of(term: str) -> str | None:
    """The form a word is also indexed under (``STEM_MARK`` + its first ``STEM_LEN`` letters — Snowball's stem's
    in Arabic and Devanagari script), or None for CJK and unspaced-script n-grams, numbers and short words."""
    if term.isdigit() or is_cjk(term) or _UNSPACED_RUN.match(term) or " " in term:
        return None
    for script, language in _SCRIPT_STEMMERS:
        if script.match(term):
            if len(term) < _SHORTEST_STEMMED:
                return None
            # A stem of one letter ("लिए" → "ल") would match every word beginning with it: none then.
            stem = _stemmer(language)(term)[:STEM_LEN]
            return STEM_MARK + stem if len(stem) >= 2 else None
    return STEM_MARK + term[:STEM_LEN] if len(term) >= STEM_LEN else None


# The memo holds words of the documents ingested and questions asked, in plain text: dropped when a session locks,
# with the blinded terms (crypto/blind.py).
on_forget(stem_of.cache_clear)


def index_terms(text: str) -> set[str]:
    """What ingest stores for a chunk: its terms (``terms_of``) and the stems of its words (``stem_of``)."""
    terms = terms_of(text)
    return terms | {s for s in map(stem_of, terms) if s is not None}


# Question words written without spaces (Thai) or of several syllables (Vietnamese "bao nhiêu", whose syllables
# also make ordinary words: "bao gồm", "thế giới"), cut out of a question before its n-grams and syllable pairs are
# taken: they would otherwise sit inside terms the declarative answer never holds (issue 20).
_QUESTION_PHRASES = re.compile("|".join(sorted(
    "อะไร ใคร ที่ไหน ไหน เมื่อไร เมื่อไหร่ อย่างไร ยังไง เท่าไร เท่าไหร่ กี่ ใด ทำไม หรือไม่ คืออะไร".split(),
    key=len, reverse=True))
    + r"|\b(?:bao nhiêu|tại sao|vì sao|làm sao|như thế nào|thế nào|khi nào|ở đâu|là gì|cái gì)\b")


def _stop_contraction(term: str) -> bool:
    """"what's", "it's", "who're": a question word or function word contracted, no more evidence than the word —
    yet absent from most texts, it took the largest weight of the question's words ("What's included in the box?"
    weighed "box" at a third). "BSkyB's" keeps its name."""
    parts = [p for p in re.split("['’]", term) if len(p) >= 2]
    return ("'" in term or "’" in term) and bool(parts) and all(p in STOPWORDS for p in parts)


def query_terms(text: str) -> set[str]:
    """Terms of a question worth matching lexically (stopwords removed).

    Chinese runs lose the bigrams that straddle a word boundary ("对计" in 理论对计算):
    a passage carries them only by chance, yet being rare they took the largest IDF
    weights and so decided the lexical check (retrieve/lexical.py) — measured with
    ``bench/eval_retrieval.py``. Passages keep every bigram (they are stored at
    ingest); only the question side is segmented, so nothing needs re-ingesting.
    """
    text = _QUESTION_PHRASES.sub("\n", unicodedata.normalize("NFKC", text).lower())
    # A syllable pair with a question or function word in it ("bao nhiêu", "của thành") is no more evidence than
    # the word alone.
    terms = {t for t in terms_of(text) if t not in STOPWORDS and not (" " in t and STOPWORDS & set(t.split()))
             and not _stop_contraction(t)}
    straddling: set[str] = set()
    inside: set[str] = set()
    for run in _HAN_RUN.findall(fold(text)):
        if len(run) < 3:
            continue
        words = segment(run)
        if words is None:
            return terms  # no segmenter: every bigram stays, as stored
        pos = 0
        for prev, w in itertools.pairwise(["", *words]):
            inside.update(w[i : i + 2] for i in range(len(w) - 1))
            # Two one-character words side by side (死|后) often are one unit the dictionary
            # splits; a bigram cutting into a longer word (论|对 of 理论|对) is not.
            if prev and (len(prev) > 1 or len(w) > 1):
                straddling.add(run[pos - 1 : pos + 1])
            pos += len(w)
    return terms - (straddling - inside)


_HAN_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def is_cjk(term: str) -> bool:
    """Is this term a CJK one (a bigram or a lone character) rather than a word?"""
    return bool(_CJK_RUN.match(term))


def segment(run: str) -> list[str] | None:
    """Chinese word segmentation (jieba's dictionary), loaded on the first Chinese question."""
    segmenter = _segmenter()
    return segmenter(run) if segmenter is not None else None


@functools.cache
def _segmenter() -> Callable[[str], list[str]] | None:
    # functools.cache: two threads asking at once both get a working segmenter.
    try:
        import jieba
    except ImportError:  # pragma: no cover - jieba is a declared dependency
        return None
    jieba.setLogLevel(60)  # its dictionary-loading chatter is not the user's business
    lcut: Callable[[str], list[str]] = jieba.lcut
    return lcut


def contains_term(chunk_terms: Container[str], term: str, blind: Callable[[str], str] = lambda t: t) -> bool:
    """Does a chunk (by its stored, possibly blinded, term set) contain every token of ``term``?"""
    needed = {blind(t) for t in terms_of(term) - STOPWORDS}
    return bool(needed) and all(t in chunk_terms for t in needed)


_QUOTED = re.compile(r"[「『《“\"']([^」』》”\"']{2,40})[」』》”\"']")
_CODE = re.compile(r"\b([A-Z]{2,}[A-Z0-9-]*|[a-z]+[A-Z][A-Za-z0-9]*)\b")
# A word of an alphabet (letters and digits, accented or not), never a run of Han, kana or Hangul beside it: in
# "Tallow Hubの値段" the name ends at "Hub".
_SPACED_WORD = re.compile(r"[^\W_\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+")
_SENTENCE_END = re.compile(r"[.!?。！？]")
# Languages that capitalise every noun: there a capital alone names nothing ("Zeit"); elsewhere it does, even on a
# word of the language ("Parlamento de Escocia").
_NOUNS_CAPITALISED = frozenset({"de"})


def _capitalised(question: str, language: str | None) -> list[str]:
    """Runs of capitalised words (joined by one space or hyphen) that are not a sentence's first word: "Tallow Sensor
    Hub", "São Paulo", "Zürich". Read by the letters' own case, so an accent neither cuts a word ("¿Qué" was "Qu",
    "Abkürzung" "Abk") nor hides a capital ("Ärzte"); a sentence's first word is first after an opening "¿" or quote
    too. In a language that capitalises its nouns, its everyday nouns are no names ("Zeit", "Wettbewerbsverbot")."""
    runs: list[str] = []
    run = ""
    end: int | None = None  # where the last word ended
    for m in _SPACED_WORD.finditer(question):
        word = m.group()
        gap = question[end:m.start()] if end is not None else ""
        first = end is None or bool(_SENTENCE_END.search(gap))
        named = (len(word) >= 2 and word[0].isupper() and not first
                 and not (language in _NOUNS_CAPITALISED and own_language_word(fold(word), language)))
        if run and not (named and gap in (" ", "-")):
            runs.append(run)
            run = ""
        if named:
            run = run + gap + word if run else word
        end = m.end()
    if run:
        runs.append(run)
    return runs


def named_terms(question: str, glossary: list[str], folded: list[tuple[str, str]] | None = None,
                language: str | None = None) -> list[str]:
    """Proper nouns, quoted names and codes in a question, plus glossary terms it uses (``folded``: the
    glossary as (term, fold(term)) pairs made once, else folded here; ``language``: the question's, when known —
    German capitalises every noun)."""
    found = [t for t in (*(m.group(1).strip() for m in _QUOTED.finditer(question)), *_capitalised(question, language),
                         *(m.group(1).strip() for m in _CODE.finditer(question)))
             if t.lower() not in STOPWORDS and len(t) >= 2]
    question_folded = fold(question)
    for g, g_folded in folded if folded is not None else ((g, fold(g)) for g in glossary):
        if len(g) >= 2 and g_folded in question_folded:
            found.append(g)
    seen: set[str] = set()
    out = []
    for t in found:
        if fold(t) not in seen:
            seen.add(fold(t))
            out.append(t)
    return out


def glossary_from_titles(titles: list[str]) -> list[str]:
    """Glossary terms from document titles: curated vocabulary, not guessed (R3a).

    Latin words of 3+ letters that are not stopwords, and CJK runs of 2+ characters.
    Titles often share a prefix (a series or an issuer); the part after a prefix
    shared with a neighbouring title is what names the document, so it is added too.
    """
    out: set[str] = set()
    runs: set[str] = set()
    for title in titles:
        t = unicodedata.normalize("NFKC", title)
        runs.update(r for r in _CJK_RUN.findall(t) if len(r) >= 2)
        for w in _WORD.findall(_CJK_RUN.sub(" ", t)):
            if len(w) >= 3 and w.lower() not in STOPWORDS and not w.isdigit():
                out.add(w)
    ordered = sorted(runs)
    prefixes: set[str] = set()
    for a, b in itertools.pairwise(ordered):
        p = 0
        while p < min(len(a), len(b)) and a[p] == b[p]:
            p += 1
        if p >= 2:
            prefixes.add(a[:p])
    for run in ordered:
        out.add(run)
        for prefix in prefixes:
            if run.startswith(prefix) and len(run) - len(prefix) >= 2:
                out.add(run[len(prefix) :])
    return sorted(out)
