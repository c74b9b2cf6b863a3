"""The demo space: the bundled multilingual corpus in ``biny.resources/demo``."""

from __future__ import annotations

from importlib import resources

from biny.core.engine import Engine, IngestReport
from biny.core.errors import SpaceNotFound
from biny.core.progress import ProgressCallback, no_progress


def build_demo(engine: Engine, space: str = "demo", *, progress: ProgressCallback = no_progress) -> IngestReport:
    """Create (or top up) the demo space; unchanged files are skipped by content hash.

    The product list (sensors.csv) ingests one document per row, and the space's structured
    index is built from it, so count/filter/top questions answer exactly in the demo too.
    """
    try:
        engine.space(space)
    except SpaceNotFound:
        # Public sample content: created unencrypted on purpose, so the demo opens
        # on a fresh machine without any passphrase set up.
        engine.create_space(space, encrypted=False)
    folder = resources.files("biny.resources").joinpath("demo")
    with resources.as_file(folder) as path:
        report = engine.ingest(space, [path], progress=progress)
    if report.by("ingested") or engine.index.info(space) is None:
        engine.index.build(space, exact=["SKU", "Product Url"])
    return report
