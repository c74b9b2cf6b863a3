"""Names a question gives (R3a: what the second pass searches when no retrieved passage mentions them), read by the
letters' own case in every alphabet — an accent neither cuts a word nor hides a capital — and never a German
everyday noun, which is capitalised by rule."""

from __future__ import annotations

import pytest

from biny.core.text.question import Question
from biny.core.text.terms import named_terms


@pytest.mark.parametrize(("question", "names"), [
    # A sentence's first word is no name, after an opening "¿" too; before, "¿Qué" gave the name "Qu".
    ("¿Qué proclamación abolió el protestantismo en Francia?", ["Francia"]),
    # In Spanish a capital names, even on a word of the language.
    ("¿De qué organizaciones están descalificados los miembros del Parlamento de Escocia?", ["Parlamento", "Escocia"]),
    # Accented capitals and letters inside a name.
    ("How far is Zürich from São Paulo?", ["Zürich", "São Paulo"]),
    ("Who founded Ärzte ohne Grenzen?", ["Ärzte", "Grenzen"]),
    # Other alphabets have capitals too.
    ("Когда Пушкин написал «Евгения Онегина»?", ["Пушкин", "Евгения Онегина"]),
    # A name ends where Han or kana begin; one joined by a hyphen stays whole.
    ("请问 the Tallow Sensor Hubの値段は？", ["Tallow Sensor Hub"]),
    ("Is the Tallow Air-Pro ready? Ask Mira.", ["Tallow Air-Pro", "Mira"]),
    # German capitalises every noun: its everyday ones are no names, a rare one is ("Cyanobakterien"), as are codes.
    ("Vor wie langer Zeit drangen Cyanobakterien in eine Zelle ein?", ["Cyanobakterien"]),
    ("Wofür stand die Abkürzung LMP bezüglich der Funktionen des Block II?", ["LMP", "Block II", "II"]),
])
def test_names_are_read_by_the_letters_own_case(question: str, names: list[str]) -> None:
    assert named_terms(question, [], language=Question.parse(question).language) == names


def test_a_german_noun_is_a_name_when_the_language_is_not_known() -> None:
    """Without the question's language nothing tells a German noun from a name: it is kept, as before."""
    assert named_terms("Vor wie langer Zeit drangen Cyanobakterien ein?", []) == ["Zeit", "Cyanobakterien"]
