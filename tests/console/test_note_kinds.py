"""Every kind of answer note reads in Chinese in the console (issue 56: notes are kinds, and their words are put
into the interface's language when shown, not when the answer was made).

Each answer comes from the core function that makes that kind — an extracted answer, a scripted model composing,
failing and replying nothing, nothing close, the structured index, a public-web answer, public results none of
which could be read, a failed search — made while the interface speaks English. Chinese is chosen afterwards,
and the Inspector's answer and its trace's answer stage must then read in Chinese.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import get_args

import pytest

from biny.console import i18n
from biny.console.screens.inspector import AnswerView, TraceTree
from biny.core import set_language as core_set_language
from biny.core.answer.compose import compose
from biny.core.answer.structured import structured_answer
from biny.core.calls import ToolCall, ToolResult
from biny.core.llm.base import LLMUnavailable, Message
from biny.core.results import Answer, AskResult, Hit, NoteKind
from biny.core.services.answers import answer_stage
from biny.core.services.web_review import Reading, WebSource
from biny.core.services.web_turn import as_public, none_read, search_failed
from biny.core.text.question import Question
from biny.core.trace import Trace
from biny.core.web.search import SearchFailed

pytestmark = pytest.mark.usefixtures("qapp")

_CJK = re.compile(r"[\u4e00-\u9fff]")
TEXT = "Pump P-7 is serviced every 6 weeks by the night shift."


class _Scripted:
    """A chat model that replies a fixed text, or fails as an unreachable endpoint does."""

    name = "scripted"

    def __init__(self, reply: str | None) -> None:
        self.reply = reply

    def complete(self, messages: list[Message], *, max_tokens: int, timeout_s: float) -> str:
        if self.reply is None:
            raise LLMUnavailable("connection refused")
        return self.reply


def _hit() -> Hit:
    return Hit("c1", "d1", "Pumps", "pumps.md", TEXT, 0.1, None, False, None, 0, [], 0, len(TEXT))


def _answers() -> dict[str, Answer]:
    q = Question.parse("How often is pump P-7 serviced?")
    hits = [_hit()]
    made: dict[str, Answer] = {
        "extracted": compose(q, hits, None, space="plant", documents=1),
        "composed": compose(q, hits, _Scripted("Every 6 weeks [1]."), space="plant", documents=1),
        "model_failed": compose(q, hits, _Scripted(None), space="plant", documents=1),
        "model_empty": compose(q, hits, _Scripted(""), space="plant", documents=1),
        "nothing_close": compose(q, [], None, space="plant", documents=1),
        "search_failed": search_failed("en", SearchFailed("the search endpoint did not answer")),
        "web_unread": none_read("en", Reading([WebSource("https://example.org/p", "P", False, "HTTP 404")])),
    }
    row = {"doc_id": "d1", "title": "Pump P-7", "fields": {"interval": "6 weeks"}}
    made["structured"] = structured_answer(
        q, ToolResult(ToolCall("lookup", "interval", doc_id="d1"), "", [], "6 weeks", [row], 1), hits)
    public = compose(q, hits, None, space="plant", documents=0)
    as_public(public, [WebSource("https://example.org/pumps", "Pumps", True)])
    made["web"] = public
    return made


@pytest.fixture
def english_then_chinese() -> Iterator[dict[str, Answer]]:
    i18n.install("en")
    answers = _answers()  # made while the interface speaks English
    assert i18n.install("zh_CN"), "console/translations/biny_zh_CN.qm is missing: run `make setup`"
    yield answers
    i18n.install("en")
    core_set_language(None)


def test_every_answer_note_kind_reads_in_chinese(english_then_chinese: dict[str, Answer]) -> None:
    answers = english_then_chinese
    assert {a.note_kind for a in answers.values()} == set(get_args(NoteKind)) == set(answers)  # every kind, once
    for kind, answer in answers.items():
        assert answer.note_kind == kind
        trace = Trace("How often is pump P-7 serviced?", "How often is pump P-7 serviced?")
        trace.add(answer_stage(answer, 0, 1.0))
        result = AskResult(trace.question, [_hit()] if answer.citations else [], None, None, "everyday", trace,
                           answer=answer)
        tree, view = TraceTree(), AnswerView()
        tree.show_trace(result)
        view.show_answer(result)
        shown = tree.topLevelItem(0).text(1)
        note = str(answer.note)
        assert _CJK.search(note) and note in shown and _CJK.search(shown.split(":")[0]), (kind, shown)
        if kind in ("model_failed", "model_empty"):  # said beside the answer too, not only in the trace
            assert note in view.toPlainText(), kind
