"""``biny-console --self-test QUESTION``: the packaged app checks itself end to end (issue 21).

Shows the main window, builds the demo space from the bundled corpus when the data folder lacks it, asks
one question through the engine the window uses, prints one JSON line and exits: 0 when the question found
passages, 1 when not. The desktop bundle's test runs it offscreen on a fresh data folder; a user can run it
to see that an installation works. ``first_window_s`` counts from ``BINY_LAUNCH_TIME`` (epoch seconds, set by
whoever launched the process) when given, else from the start of ``main``.
"""

from __future__ import annotations

import json
import os
import sys
import time

from PySide6.QtWidgets import QApplication

from biny.core import Engine, SpaceNotFound, build_demo


def run(app: QApplication, engine: Engine, space: str, question: str, started: float) -> int:
    from biny.console.app import MainWindow

    launched = float(os.environ.get("BINY_LAUNCH_TIME", started))
    window = MainWindow(engine, None)
    window.show()
    app.processEvents()
    first_window_s = time.time() - launched
    try:
        engine.space(space)
    except SpaceNotFound:
        build_demo(engine, space)
    window.on_space(space)
    app.processEvents()
    result = engine.ask(space, question)
    info = engine.space(space)
    out = {"first_window_s": round(first_window_s, 2), "window": window.windowTitle(), "space": space,
           "documents": info.documents, "chunks": info.chunks, "answer_chunks": len(result.chunks),
           "top": result.chunks[0].text[:2000] if result.chunks else None,
           "frozen": bool(getattr(sys, "frozen", False))}
    print(json.dumps(out, ensure_ascii=False), flush=True)
    window.close()
    return 0 if result.chunks else 1
