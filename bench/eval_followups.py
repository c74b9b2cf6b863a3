"""Follow-up questions (SPEC R1): bare question vs deterministic fallbacks vs a model rewrite.

Run: ``python bench/eval_followups.py``. The set (bench/followups.jsonl) has two-turn
conversations over ../shared/corpora whose second turn refers back to the first.
Hit = the answer string is in the returned context (K=5). The "rewrite" row sends
each follow-up through the real rewrite path — an OpenAI-compatible server on
127.0.0.1 started here, answering with the set's reference rewrite — so it measures
the plumbing and the upper bound a good model reaches, not a particular model.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from biny.core.engine import Engine
from biny.core.llm.openai_compat import OpenAICompatible

HERE = Path(__file__).resolve().parent
CORPORA = HERE.parent / ".." / "shared" / "corpora"


def load() -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (HERE / "followups.jsonl").read_text(encoding="utf-8").splitlines()]


def serve(gold: dict[str, str]) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            last = body["messages"][-1]["content"].split("Last question: ")[-1].strip()
            reply = json.dumps({"choices": [{"message": {"content": gold.get(last, last)}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"


def main() -> int:
    items = load()
    docs = sorted({i["document"] for i in items})
    paths = [CORPORA / ("cn_laws" if d.endswith(".md") else "python_peps") / d for d in docs]
    with tempfile.TemporaryDirectory() as tmp, Engine.open(Path(tmp) / "home") as eng:
        eng.create_space("f", encrypted=False)
        eng.ingest("f", paths)
        httpd, url = serve({i["question"]: i["rewrite"] for i in items})
        variants = {
            "bare question": ("none", None),
            "previous + current": ("previous+current", None),
            "entity carry-over": ("entity-carry", None),
            "rewrite (test server)": ("none", OpenAICompatible(url, "reference-rewrites")),
        }
        print(f"{len(items)} two-turn conversations ({sum(i['lang'] == 'zh' for i in items)} zh, "
              f"{sum(i['lang'] == 'en' for i in items)} en) over {len(docs)} documents; K=5")
        print(f"{'variant':<24}{'all':>7}{'zh':>7}{'en':>7}")
        for name, (fallback, model) in variants.items():
            eng.settings.llm.followup_fallback = fallback
            eng.models.set_llm(model)
            hits = {"zh": 0, "en": 0}
            for it in items:
                r = eng.ask("f", it["question"], history=it["history"], k=5)
                hits[it["lang"]] += any(it["answer"] in h.text for h in r.chunks)
            n_zh = sum(i["lang"] == "zh" for i in items)
            n_en = len(items) - n_zh
            print(f"{name:<24}{(hits['zh'] + hits['en']) / len(items):>7.2f}{hits['zh'] / n_zh:>7.2f}"
                  f"{hits['en'] / n_en:>7.2f}")
        httpd.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
