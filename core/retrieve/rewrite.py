"""Follow-up rewrite (SPEC R1, M2): only the retrieval vector changes.

A regex of referring expressions decides whether to try; it over-triggers on
purpose (a needless try costs one cheap call; a missed one loses the turn). The
model gets ≤3 s and ≤128 output tokens and must return one self-contained
sentence — relations and negation kept, no keyword lists. Any failure falls back.
The rewrite never reaches the prompt, the history or storage: callers use it as
the retrieval query only.

Without a model, a deterministic fallback is used: measured on the follow-up set
(bench/eval_followups.py), carrying the previous question into the query
("previous + current") beats the bare question; see that script's output.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from biny.core.i18n import Said, msg
from biny.core.llm.base import ChatModel, LLMError, Message
from biny.core.text.terms import named_terms
from biny.core.trace import Stage, Trace
from biny.core.trace.records import RewriteRecord

REFERRING = re.compile(
    r"它们?|他们|她们|这个|那个|这款|那款|这种|那种|这些|那些|该|此|上面|上述|前面|刚才|其|那|这|呢|"
    r"それ|あれ|これ|その|あの|この|前述|上記|"
    r"\b(?:it|its|it's|they|them|their|this|that|these|those|the same|that one|this one|one|above|previous|"
    r"former|latter|there|he|she|his|her|also|too|what about|and|how about)\b|"
    r"\b(?:es|das|dies|diese[rsmn]?|jene[rsmn]?|dort|dessen|deren|ihr|ihm|sie)\b",
    re.I,
)
# The rewrite is one short line: 3 s and 128 tokens bound a model that rambles or hangs, and the question then goes
# on as the deterministic rewrite (R1). Chosen as bounds, not fitted.
MAX_SECONDS = 3.0
MAX_TOKENS = 128
# A rewrite is rejected as not a rewrite when it is more than 4× the question's length and 240 characters longer
# (an answer or an explanation, not a question), ...
REWRITE_MAX_TIMES = 4
REWRITE_MAX_EXTRA = 240
# ... a keyword list (3 or more segments of at most 3 words / 20 characters, no sentence end), ...
KEYWORD_SEGMENTS = 3
KEYWORD_WORDS = 3
KEYWORD_CHARS = 20
# ... or a fragment: under 4 words (or 6 CJK characters) with no sentence end. These shapes were read off the
# model replies of tests/core/test_llm.py's loopback cases; not fitted to a figure.
SENTENCE_MIN_WORDS = 4
SENTENCE_MIN_CJK = 6
# Earlier questions shown to the model: a follow-up's referent sits in the last one or two; 4 leave room for one
# aside without a long prompt (a bound, not fitted).
HISTORY_TURNS = 4

_SYSTEM = (
    "You rewrite the user's LAST question so it can be understood without the conversation. "
    "Replace pronouns and references with what they refer to. Keep every relation, condition and "
    "negation. Keep the user's language. Answer with exactly one complete question sentence and "
    "nothing else. If the question is already self-contained, repeat it unchanged."
)


@dataclass(slots=True)
class Rewrite:
    original: str
    query: str  # what retrieval embeds
    method: str  # none | model | fallback:<name>
    reason: Said


def needs_rewrite(question: str, history: list[str]) -> bool:
    return bool(history) and bool(REFERRING.search(question))


def acceptable(original: str, reply: str) -> tuple[bool, Said]:
    """Is a model reply one self-contained sentence (not keywords, empty or far too long)?"""
    text = reply.strip().strip('"“”「」')
    if not text:
        return False, "empty reply"
    if "\n" in text.strip():
        return False, msg("more than one line")
    if len(text) > max(REWRITE_MAX_TIMES * len(original), len(original) + REWRITE_MAX_EXTRA):
        return False, msg("far longer than asked")
    segments = [s.strip() for s in re.split(r"[,;/、，；|]", text) if s.strip()]
    has_sentence_end = bool(re.search(r"[?？。.!！]$", text))
    words = len(re.findall(r"\w+", text))
    cjk = len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", text))
    if len(segments) >= KEYWORD_SEGMENTS and not has_sentence_end \
            and all(len(s.split()) <= KEYWORD_WORDS and len(s) <= KEYWORD_CHARS for s in segments):
        return False, "a keyword list, not a sentence"
    if not has_sentence_end and words < SENTENCE_MIN_WORDS and cjk < SENTENCE_MIN_CJK:
        return False, msg("not a complete sentence")
    return True, "ok"


def fallback_query(question: str, history: list[str], method: str = "previous+current") -> str:
    """Deterministic follow-up handling without a model."""
    if not history:
        return question
    prev = history[-1]
    if method == "previous+current":
        return f"{prev} {question}"
    if method == "entity-carry":
        carried = [term for term in named_terms(prev, []) if term.lower() not in question.lower()]
        return f"{question} {' '.join(carried)}".strip() if carried else f"{prev} {question}"
    return question


def rewrite(question: str, history: list[str], model: ChatModel | None,
            fallback: str = "previous+current") -> Rewrite:
    if not needs_rewrite(question, history):
        why: Said = msg("no conversation before it") if not history else msg("no referring expression")
        return Rewrite(question, question, "none", why)
    if model is not None:
        convo = "\n".join(f"Earlier question: {h}" for h in history[-HISTORY_TURNS:])
        messages = [Message("system", _SYSTEM), Message("user", f"{convo}\nLast question: {question}")]
        try:
            reply = model.complete(messages, max_tokens=MAX_TOKENS, timeout_s=MAX_SECONDS)
        except LLMError as exc:
            q = fallback_query(question, history, fallback)
            return Rewrite(question, q, f"fallback:{fallback}", msg("the model failed ({kind}): {error}").format(
                kind=exc.kind, error=exc))
        ok, why = acceptable(question, reply)
        if ok:
            return Rewrite(question, reply.strip().strip('"“”「」'), "model", msg("rewritten by the model"))
        q = fallback_query(question, history, fallback)
        return Rewrite(question, q, f"fallback:{fallback}",
                       msg("the model's reply was not used: {why}").format(why=why))
    q = fallback_query(question, history, fallback)
    return Rewrite(question, q, f"fallback:{fallback}", msg("no model configured"))


def said(method: str) -> Said:
    """A rewrite method in the reader's words ("none: 此前没有对话" showed an identifier in a Chinese session)."""
    if method == "none":
        return msg("not rewritten")
    if method == "model":
        return msg("rewritten")
    return msg("rewritten without a model ({rule})").format(rule=method.removeprefix("fallback:"))


def rewrite_stage(question: str, history: list[str], model: ChatModel | None, fallback: str, trace: Trace) -> str:
    """R1 as a pipeline stage: the query to embed (the question itself unless a follow-up was rewritten)."""
    t0 = time.perf_counter()
    rw = rewrite(question, history, model, fallback)
    trace.retrieval_query = rw.query
    trace.add(Stage("rewrite", said(rw.method) + ": " + rw.reason, data=RewriteRecord(question, rw.query, rw.method),
                    ms=(time.perf_counter() - t0) * 1000))
    return rw.query
