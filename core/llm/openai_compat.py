"""Any OpenAI-compatible chat endpoint: Ollama, vLLM, llama.cpp server, hosted APIs.

The deadline is total: the call runs on a worker thread and is abandoned when the
time is up, so a server that accepts the connection and then stalls (or trickles
bytes) cannot hold a turn past ``timeout_s``.
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

from biny.core.i18n import t
from biny.core.llm.base import (
    LLMConnectionError,
    LLMHTTPError,
    LLMMalformedReply,
    LLMTimeout,
    Message,
)

log = logging.getLogger(__name__)
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="biny-llm")


class OpenAICompatible:
    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"{model} @ {self.base_url}"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=self.base_url, headers=headers, transport=transport)

    def _payload(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        out = []
        for m in messages:
            if m.images:
                parts: list[dict[str, Any]] = [{"type": "text", "text": m.content}]
                for img in m.images:
                    mime = "image/png" if img[:4] == b"\x89PNG" else "image/jpeg"
                    url = f"data:{mime};base64,{base64.b64encode(img).decode()}"
                    parts.append({"type": "image_url", "image_url": {"url": url}})
                out.append({"role": m.role, "content": parts})
            else:
                out.append({"role": m.role, "content": m.content})
        return {"model": self.model, "messages": out, "max_tokens": max_tokens, "temperature": 0}

    def _call(self, payload: dict[str, Any], timeout_s: float) -> str:
        try:
            resp = self._client.post("/chat/completions", json=payload, timeout=timeout_s)
        except httpx.TimeoutException as exc:
            raise LLMTimeout(t("{name} did not answer within {timeout_s:.1f} s.")
                              .format(name=self.name, timeout_s=timeout_s)) from exc
        except httpx.HTTPError as exc:
            raise LLMConnectionError(t("Cannot reach {name}: {detail}. Check llm.base_url and that the server is "
                                       "running.").format(name=self.name, detail=exc)) from exc
        if resp.status_code >= 400:
            raise LLMHTTPError(t("{name} answered HTTP {status}: {text}")
                                .format(name=self.name, status=resp.status_code, text=resp.text[:200]))
        try:
            data = resp.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMMalformedReply(t("{name} sent a reply that is not a chat completion ({kind}).")
                                     .format(name=self.name, kind=type(exc).__name__)) from exc
        if not isinstance(content, str):
            raise LLMMalformedReply(t("{name} sent a non-text completion.").format(name=self.name))
        return content

    def _within(self, call: Callable[[], str], timeout_s: float, what: str) -> str:
        """Run ``call`` on the worker pool and give up at the deadline, whatever the server does."""
        future = _pool.submit(call)
        try:
            return future.result(timeout=timeout_s)
        except concurrent.futures.TimeoutError as exc:
            log.warning("LLM %s abandoned after %.1f s (%s)", what, timeout_s, self.name)
            raise LLMTimeout(t("{name} did not answer within {timeout_s:.1f} s.")
                              .format(name=self.name, timeout_s=timeout_s)) from exc
        except (LLMTimeout, LLMConnectionError, LLMHTTPError, LLMMalformedReply) as exc:
            log.warning("LLM %s failed: %s", what, exc)
            raise

    def complete(self, messages: list[Message], *, max_tokens: int, timeout_s: float) -> str:
        payload = self._payload(messages, max_tokens)
        return self._within(lambda: self._call(payload, timeout_s), timeout_s, "call")

    def _stream(self, payload: dict[str, Any], timeout_s: float, on_text: Callable[[str], None]) -> str:
        """Server-sent events (``"stream": true``): ``on_text`` gets the text so far after each piece."""
        deadline = time.monotonic() + timeout_s
        parts: list[str] = []
        try:
            with self._client.stream("POST", "/chat/completions", json={**payload, "stream": True},
                                     timeout=timeout_s) as resp:
                if resp.status_code >= 400:
                    resp.read()
                    raise LLMHTTPError(t("{name} answered HTTP {status}: {text}")
                                        .format(name=self.name, status=resp.status_code, text=resp.text[:200]))
                for line in resp.iter_lines():
                    if time.monotonic() > deadline:
                        raise LLMTimeout(t("{name} did not finish within {timeout_s:.1f} s.")
                                          .format(name=self.name, timeout_s=timeout_s))
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    try:
                        piece = json.loads(data)["choices"][0].get("delta", {}).get("content") or ""
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                        raise LLMMalformedReply(t("{name} sent a stream event that is not a chat completion chunk "
                                                  "({kind}).").format(name=self.name, kind=type(exc).__name__)) from exc
                    if piece:
                        parts.append(piece)
                        on_text("".join(parts))
        except httpx.TimeoutException as exc:
            raise LLMTimeout(t("{name} did not answer within {timeout_s:.1f} s.")
                              .format(name=self.name, timeout_s=timeout_s)) from exc
        except httpx.HTTPError as exc:
            raise LLMConnectionError(t("Cannot reach {name}: {detail}. Check llm.base_url and that the server is "
                                       "running.").format(name=self.name, detail=exc)) from exc
        return "".join(parts)

    def stream(self, messages: list[Message], *, max_tokens: int, timeout_s: float,
               on_text: Callable[[str], None]) -> str:
        """Like ``complete``, reporting the reply as it arrives; the same total deadline."""
        payload = self._payload(messages, max_tokens)
        return self._within(lambda: self._stream(payload, timeout_s, on_text), timeout_s, "stream")
