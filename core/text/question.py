"""A question, parsed once (issue 56).

Every stage of an ask — the reference it is measured against, the word check, the dictionary, the identifiers
pinned, the second pass, the extracted answer and the language it is written in — reads the same analysis of the
question. Before this value each stage re-derived what it needed from the text (``script_of`` at 8 call sites,
``query_terms`` at 5, two different functions named ``language_of``), so two stages could disagree about one
question and the same work was done several times per ask. Parsing lives here, in ``core/text``; a test fails when
a module elsewhere analyses a question's text itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from biny.core.text.asks import Asks
from biny.core.text.aspects import asked_aspects
from biny.core.text.identifiers import Identifier, model_codes, question_keys
from biny.core.text.language import language_of
from biny.core.text.scripts import script_of
from biny.core.text.terms import query_terms

__all__ = ["Question", "reply_language", "sentence_language"]

# The language an answer is written in, by the question's script; Latin-script questions are answered in English
# unless their Han characters outnumber their Latin words (``reply_language``).
LANGUAGE_OF_SCRIPT = {"han": "zh", "kana": "ja", "hangul": "ko"}
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_KANA = re.compile(r"[\u3040-\u30ff]")


def reply_language(text: str) -> str:
    """The language to answer in. A Chinese question naming Latin-script things ("主题为Packaging的PEP有哪些？")
    has more Latin letters than Han characters, yet a Han character carries about a word: more of them than
    Latin words makes the question Chinese."""
    script = script_of(text)
    if script == "latin" and len(_HAN.findall(text)) > len(_LATIN_WORD.findall(text)):
        return "zh"
    return LANGUAGE_OF_SCRIPT.get(script, "en")


def sentence_language(question: str) -> str:
    """en, zh, ja or de: the language a sentence said for the question is in (German told by its words) — the
    row answers' languages (answer/rows.py, answer/structured.py; issue 64). ``reply_language`` is the engine's
    own messages'; the two are to become one once every message speaks German."""
    script = script_of(question)
    if script == "kana" or (_KANA.search(question) and _HAN.search(question)):
        return "ja"
    # A Chinese question names Latin-script things ("Tallow Smoke Alarm 多少钱？"): its own words are the Han ones.
    if script == "han" or len(_HAN.findall(question)) >= 2 or len(_HAN.findall(question)) > len(
            _LATIN_WORD.findall(question)):
        return "zh"
    words = re.findall(r"[a-zäöüß]+", question.casefold())
    german = sum(w in _GERMAN for w in words)
    # Two German words, an umlaut, or one German word and no English one ("Akkulaufzeit Gateway Home": the rest is
    # the row's name).
    if german >= 2 or any(c in question for c in "äöüßÄÖÜ") or (german and not any(w in _ENGLISH for w in words)):
        return "de"
    return "en"


_GERMAN = frozenset("""wie wann welche welcher welches kostet kosten ist der die das dem des hat hält gibt erschienen
für viel lange teuer preis von vom seit gross groß wurde sind akku reichweite wer schrieb geschrieben kategorie
akkulaufzeit batterielaufzeit artikelnummer modellnummer bestellnummer gewicht bewertung bewertungen sterne ausgaben
farbe erscheinungsjahr verlag autor autorin""".split())
# Languages that capitalise a word inside a sentence only when it names something (German capitalises every noun).
_NAMES_CAPITALISED = frozenset({"en", "fr", "es", "it", "nl", "pt"})
# What ends a sentence before a word: a capital after it is the sentence's, not a name's.
_SENTENCE_END = ".?!:;¿¡\n"

# Small words a multi-word name holds between its capitalised ones ("Nobel Memorial Prize in Economic Sciences").
_NAME_JOINS = frozenset({"of", "in", "the", "and", "for", "on", "de", "del", "der", "la", "le", "du", "di", "da",
                         "von"})
_WORD = re.compile(r"[^\W\d_][\w'’-]*")

_ENGLISH = frozenset("""the a an of what which who how when is are was does do did for to in on price cost""".split())


def _titled(word: str) -> bool:
    """Written with a capital first and small letters after ("Memorial"), as a name's words are; not an acronym."""
    return word[0].isupper() and not word.isupper()


@dataclass(frozen=True, slots=True)
class Question:
    """What one question is, as every stage reads it.

    ``text`` is the question as asked (or as rewritten for retrieval: ``Question.parse`` of the rewrite);
    ``script`` its script group (``text/scripts.py``: kana before han); ``language`` the language of a
    Latin-script question when the identifier is sure, else None (``text/language.py``); ``reply_language`` the
    language its answer is written in; ``terms`` the words worth matching (stopwords and question phrases
    removed, ``text/terms.py``); ``keys`` the identifiers it names (article numbers, RFCs, part numbers);
    ``aspects`` the forms of answer it asks for (a year, a count, a price …, ``text/aspects.py``); ``asks`` the
    form, value, price, unit and versions its answer must give (``text/asks.py``); ``names`` the terms it writes
    as names (``written_as_name``) where writing tells a name — an English question, or Latin words inside another
    script (retrieve/mentions.py refuses a name the space never writes, answer/extractive.py wants the value said of
    it; both read this one set); ``codes`` the hyphenated model codes it names ("DC-4", "TH-200",
    ``text/identifiers.py`` ``model_codes``).
    """

    text: str
    script: str
    language: str | None
    reply_language: str
    terms: frozenset[str]
    keys: tuple[Identifier, ...]
    aspects: frozenset[str]
    asks: Asks
    names: frozenset[str] = frozenset()
    codes: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Question:
        parsed = cls(text=text, script=script_of(text), language=language_of(text),
                     reply_language=reply_language(text), terms=frozenset(query_terms(text)),
                     keys=tuple(question_keys(text)), aspects=frozenset(asked_aspects(text)), asks=Asks.of(text),
                     codes=tuple(model_codes(text)))
        # Capitals tell a name in English, and a Latin word inside another script is written as English writes it; a
        # name in another Latin-script language is often written otherwise in the material ("Varsovia" for Warsaw),
        # so there only an acronym, written alike in every language ("Auf welchem Port läuft die MQTT-Schnittstelle?"),
        # is evidence of what the material lacks or must say.
        capitals = not (parsed.script == "latin" and parsed.reply_language == "en" and parsed.language != "en")
        return replace(parsed, names=frozenset(t for t in parsed.terms if " " not in t and parsed.written_as_name(t)
                                               and (capitals or parsed._acronym(t))))

    def written(self, term: str) -> str:
        """A folded term as the question writes it ("GraphQL" for "graphql"), for what is said back."""
        found = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", self.text, re.IGNORECASE)
        return found.group(0) if found else term

    def written_as_name(self, term: str) -> bool:
        """Does the question write ``term`` as a name? All in capitals ("NFC", "CEO": an acronym), or — in a language
        that capitalises only names, or as a Latin word inside Chinese or Japanese — with a capital where a sentence
        does not begin ("Does the hub work with Alexa?"). A word frequent in English can still name a product or a
        person, and only its writing says so. A question written all in capitals says nothing."""
        if self._acronym(term):
            return True
        if not any(c.islower() for c in self.text):
            return False
        by_capital = self.script != "latin" or self.language in _NAMES_CAPITALISED
        for found in re.finditer(rf"(?<!\w){re.escape(term)}(?!\w)", self.text, re.IGNORECASE):
            word = found.group(0)
            before = self.text[: found.start()].rstrip(" \t\"'“‘(«")
            if by_capital and word[0].isupper() and before and before[-1] not in _SENTENCE_END:
                return True
        return False

    def _acronym(self, term: str) -> bool:
        """Is ``term`` written all in capitals ("NFC", "MQTT"), in a question that is not?"""
        return any(c.islower() for c in self.text) and any(
            sum(c.isalpha() for c in found.group(0)) >= 2 and found.group(0).isupper()
            for found in re.finditer(rf"(?<!\w){re.escape(term)}(?!\w)", self.text, re.IGNORECASE))

    def name_around(self, term: str) -> tuple[str, ...]:
        """The other words of the capitalised name ``term`` is written in (folded): "nobel", "prize", "economic" …
        for "memorial" in "… win the Nobel Memorial Prize in Economic Sciences?"; empty when it stands alone. An
        acronym is a name of its own: "CEO" of "the CEO of Tallow" is no part of "Tallow"."""
        words = [w.group(0) for w in _WORD.finditer(self.text)]
        at = next((i for i, w in enumerate(words) if w.casefold() == term), None)
        if at is None or not _titled(words[at]):
            return ()
        run = {at}
        for step in (-1, 1):
            i, last = at + step, at
            while 0 <= i < len(words) and (_titled(words[i]) or words[i] in _NAME_JOINS):
                if _titled(words[i]):
                    run.update(range(min(last, i), max(last, i) + 1))
                    last = i
                i += step
        return tuple(words[i].casefold() for i in sorted(run) if i != at and words[i] not in _NAME_JOINS)

    def __str__(self) -> str:
        return self.text
