"""Grounded answers: retrieval, then the answer composed from its final context (answer/compose.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from biny.core.answer import extractive, rows
from biny.core.answer.compose import ComposeSettings, compose
from biny.core.answer.structured import looked_for, refused_answer, structured_answer
from biny.core.i18n import as_msg, msg
from biny.core.results import Answer, AskResult
from biny.core.retrieve.candidates import RetrievalParams
from biny.core.services.folder import DataFolder
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.store.catalog import SpaceRef, SpaceRow
from biny.core.text.question import Question, sentence_language
from biny.core.trace import Stage
from biny.core.trace.records import AnswerRecord

if TYPE_CHECKING:
    from biny.core.services.web import WebFallback


def answer_stage(answer: Answer, made: int, ms: float) -> Stage:
    """The trace's last stage: the answer's mode and note, and the passages it cites. ``made``: passages stored
    without sentence vectors whose sentences were embedded for this answer."""
    made_now = msg("; the sentences of {n} passage(s) stored without their vectors were embedded now (`biny space "
                   "reembed` stores them)").format(n=made) if made else ""
    return Stage("answer", msg(answer.mode) + ": " + as_msg(answer.note) + made_now,
                 kept=[c.chunk_id for c in answer.citations],
                 data=AnswerRecord(answer.mode, [c.n for c in answer.citations], answer.untraced_numbers,
                                   answer.removed_citations, answer.removed_placeholders, answer.language), ms=ms)


class Answers:
    def __init__(self, folder: DataFolder, models: Models, retriever: Retriever, web: WebFallback | None) -> None:
        self.folder = folder
        self.models = models
        self.retriever = retriever
        self.web = web  # the public-web fallback (services/web.py): asked when nothing in the space is close

    def _other_rows_only(self, space: SpaceRow, result: AskResult) -> str | None:
        """A question naming one row and asking what no field holds (routed.named_row) is answered from that row or
        from prose — never from another row of the table (issue 64): those passages leave the context. Returns the
        named row's title when some left it (the answer then says so if nothing else was found)."""
        routed, index = result.routed, self.retriever.structured
        if routed is None or routed.named_row is None or index is None or not result.chunks:
            return None
        doc, title = routed.named_row
        others = index.other_rows(space, doc, [h.doc_id for h in result.chunks])
        if not others:
            return None
        result.chunks = [h for h in result.chunks if h.doc_id not in others]
        return title

    def answer(self, space: SpaceRef, question: str, *, history: list[str] | None = None, k: int | None = None,
               max_distance: float | None = None, params: RetrievalParams | None = None,
               on_text: Callable[[str], None] | None = None) -> AskResult:
        # The question is parsed once, here (text/question.py); retrieval and the answer read the same analysis.
        asked = Question.parse(question.strip())
        row = self.folder.catalog.spaces.resolve(space)  # once: retrieval and the answer read this row (issue 56)
        result = self.retriever.ask(row, asked, k=k, max_distance=max_distance, params=params, history=history)
        if result.structured is not None:
            others = result.routed.others if result.routed is not None else []
            result.answer = structured_answer(asked, result.structured, result.chunks, others)
            return result

        if result.refused is not None:  # issue 64: the table lacks the row or field: said, with the closest one
            index = self.retriever.structured
            info = index.info(row) if index is not None else None
            fields = [f.name for f in info.spec.fields if f.name != info.spec.title_field] if info else []
            result.answer = refused_answer(result.question, result.refused, fields)
            return result
        named_only = self._other_rows_only(row, result)
        llm = self.folder.settings.llm
        # The document count only appears in "not in your material": read it only then.
        documents = 0 if result.chunks else self.retriever.active_documents(row)
        t0 = time.perf_counter()
        index = self.retriever.structured
        exact = None
        if index is not None and self.models.llm is not None and result.chunks:
            values = index.exact_values(row, [h.doc_id for h in result.chunks])
            exact = {doc: list(v.values()) for doc, v in values.items()}
        model = self.models.llm if result.chunks else None
        stored, made = self._stored(row, asked, result) if model is None and result.chunks else (None, 0)
        answer = compose(asked, result.chunks, model, space=row.name, documents=documents, history=history,
                         cfg=ComposeSettings(timeout_s=llm.answer_timeout_s, max_tokens=llm.answer_max_tokens),
                         on_text=on_text, exact=exact, distances=self.models.sentence_distances, stored=stored,
                         unmentioned=result.unmentioned)
        if named_only is not None and not result.chunks:
            answer = Answer(rows.only_others(result.question, named_only), "none", [], [],
                            sentence_language(result.question),
                            note=msg("the rows found are not the one asked about; no model was asked"))
        routed = result.routed
        if answer.mode == "none" and routed is not None and routed.looked_for:
            # Issue 63: the refusal says which values the index looked for, and where.
            answer.text += looked_for(result.question, routed.looked_for, routed.looked_in)
        result.answer = answer
        if not result.chunks and self.web is not None and self.web.ready(row):
            self.web.answer(row, result, history, asked)  # W1–W5: only when switched on, never otherwise
            answer = result.answer
        result.trace.add(answer_stage(answer, made, (time.perf_counter() - t0) * 1000))
        return result

    def _stored(self, row: SpaceRow, asked: Question, result: AskResult) -> tuple[extractive.Stored, int]:
        """The final context's stored sentence vectors and the query's vector — the one retrieval embedded (a
        follow-up's rewrite, else the question), cached since: the extracted answer reads meaning without a model
        call (issue 57). And how many passages, stored without them, had their sentences embedded now."""
        vectors, made = self.retriever.stored_sentences.for_hits(row, self.retriever.matrix(row), result.chunks)
        query = result.trace.retrieval_query or asked.text
        return extractive.Stored(self.models.embed_queries([query])[0], vectors), made
