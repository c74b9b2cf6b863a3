"""Model provider and follow-up rewrite (SPEC R1) against a real local HTTP server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from biny.core.engine import Engine
from biny.core.llm.base import LLMHTTPError, LLMMalformedReply, LLMTimeout, Message
from biny.core.llm.openai_compat import OpenAICompatible
from biny.core.retrieve.rewrite import acceptable, needs_rewrite, rewrite
from tests.conftest import ROOT


class FakeOpenAI(BaseHTTPRequestHandler):
    """An OpenAI-compatible /chat/completions endpoint with scripted behaviour."""

    mode = "good"
    reply = ""
    requests: list[dict] = []  # type: ignore[type-arg]  # noqa: RUF012 — shared with the test

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.requests.append(body)
        if self.mode == "sleep":
            time.sleep(5)
        if self.mode == "500":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"internal error")
            return
        payload = b"{not json" if self.mode == "malformed" else json.dumps(
            {"choices": [{"message": {"role": "assistant", "content": self.reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    FakeOpenAI.mode, FakeOpenAI.reply, FakeOpenAI.requests = "good", "", []
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


HISTORY = ["劳动法第十八条规定了哪些劳动合同无效？"]
FOLLOW = "那第十九条呢？"
GOOD = "劳动法第十九条规定了什么？"


def test_good_rewrite_is_used_for_retrieval_only(server: str, engine: Engine) -> None:
    FakeOpenAI.reply = GOOD
    engine.models.set_llm(OpenAICompatible(server, "test-model"))
    engine.create_space("laws")
    engine.ingest("laws", [ROOT.parent / "shared/corpora/cn_laws/社会法__劳动法(2018-12-29).md"])
    history = list(HISTORY)
    result = engine.ask("laws", FOLLOW, history=history)
    stage = result.trace.stage("rewrite")
    assert stage is not None and stage.data.method == "model"
    assert result.trace.retrieval_query == GOOD
    assert result.question == FOLLOW and result.trace.question == FOLLOW  # the prompt keeps the user's words
    assert history == HISTORY  # the conversation is not touched
    assert engine._retriever._turns[result.turn_id].history == HISTORY
    sent = FakeOpenAI.requests[0]
    assert sent["max_tokens"] == 128 and FOLLOW in sent["messages"][-1]["content"]
    assert any("第十九条" in h.text for h in result.chunks)
    for path in engine.home.rglob("*"):  # nothing stored the rewrite
        if path.is_file():
            assert GOOD.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(("mode", "reply", "why"), [
    ("sleep", GOOD, "timeout"),
    ("500", GOOD, "http"),
    ("malformed", GOOD, "malformed"),
    ("good", "劳动法, 第十九条, 规定, 内容", "keyword list"),
    ("good", "劳动法第十九条规定了什么？" * 30, "far longer"),
    ("good", "", "empty"),
    ("good", "第一行？\n第二行？", "more than one line"),
])
def test_every_failure_falls_back_to_the_original(server: str, mode: str, reply: str, why: str) -> None:
    FakeOpenAI.mode, FakeOpenAI.reply = mode, reply
    asked: list[dict[str, Any]] = []

    class Recorded(OpenAICompatible):
        def complete(self, messages: list[Message], **kw: Any) -> str:
            asked.append(kw)
            return super().complete(messages, **kw)

    rw = rewrite(FOLLOW, HISTORY, Recorded(server, "test-model"), fallback="none")
    assert rw.method == "fallback:none" and rw.query == FOLLOW
    assert why in str(rw.reason)
    # R1: the call itself is capped (3 s, 128 tokens) — checked on the request, not by timing this machine.
    assert asked == [{"max_tokens": 128, "timeout_s": 3.0}]


def test_provider_errors_are_distinct(server: str) -> None:
    model = OpenAICompatible(server, "m")
    msgs = [Message("user", "hi")]
    for mode, exc in (("500", LLMHTTPError), ("malformed", LLMMalformedReply), ("sleep", LLMTimeout)):
        FakeOpenAI.mode = mode
        with pytest.raises(exc):
            model.complete(msgs, max_tokens=8, timeout_s=1.0)
    dead = OpenAICompatible("http://127.0.0.1:9/v1", "m")
    with pytest.raises(Exception, match="Cannot reach"):
        dead.complete(msgs, max_tokens=8, timeout_s=2.0)


def test_trigger_regex_over_triggers_and_validation() -> None:
    assert needs_rewrite("What about its price?", ["Tell me about the Starter plan"])
    assert needs_rewrite("那个多少钱？", ["入门版适合谁？"])
    assert needs_rewrite("それはいくらですか？", ["スタータープランとは？"])
    assert not needs_rewrite("What is PEP 8?", [])  # nothing to refer back to
    assert acceptable("它多少钱？", "入门版每月多少钱？")[0]
    assert acceptable("Which are not covered?", "Which cases are not covered by the warranty?")[0]
    assert not acceptable("x", "price, plan, starter, month")[0]


def test_no_model_uses_the_deterministic_fallback(engine: Engine, tmp_path: Path) -> None:
    engine.create_space("s")
    result = engine.ask("s", "And what about its price?", history=["Tell me about the Starter plan"])
    stage = result.trace.stage("rewrite")
    assert stage is not None and stage.data.method == "fallback:previous+current"
    assert result.trace.retrieval_query == "Tell me about the Starter plan And what about its price?"


def test_situating_notes_are_cached_and_only_in_the_embedding_input(server: str, engine: Engine,
                                                                     tmp_path: Path) -> None:
    FakeOpenAI.reply = "This passage belongs to the chapter on statutory inheritance."
    engine.models.set_llm(OpenAICompatible(server, "note-model"))
    engine.settings.llm.situating_notes = True
    engine.create_space("s")
    doc = tmp_path / "inherit.md"
    text = (ROOT.parent / "shared/corpora/cn_laws/民法典__继承编.md").read_text(encoding="utf-8")
    doc.write_text(text, encoding="utf-8")
    engine.ingest("s", [doc])
    first_calls = len(FakeOpenAI.requests)
    chunks = engine.document_chunks("s", engine.documents("s")[0].doc_id)
    assert first_calls == len(chunks) > 3
    assert all("statutory inheritance" not in c.text for c in chunks)  # stored text unchanged
    # The note is counted in each chunk's embedding input (tokens include it).
    assert engine.catalog.con.execute("SELECT count(*) FROM situating_notes").fetchone()[0] == first_calls
    stored = engine.catalog.con.execute("SELECT note FROM situating_notes LIMIT 1").fetchone()[0]
    assert stored.startswith("enc:")  # sealed: the space is encrypted
    doc.write_text(text + "\n\n第九百九十九条 新增的测试条款。\n", encoding="utf-8")
    engine.ingest("s", [doc])
    assert len(FakeOpenAI.requests) - first_calls <= 2  # only the changed tail asked again
    FakeOpenAI.mode = "500"
    doc.write_text(text + "\n\n第九百九十八条 又一条。\n", encoding="utf-8")
    assert engine.ingest("s", [doc]).ok  # a failing model never fails the ingest
