"""Space backups: catalog rows (incl. the wrapped key) and the Lance table in one .tar.

Encrypted spaces stay encrypted in the backup: it holds ciphertext and the wrapped key,
and the passphrase is needed to read it after import.
"""

from __future__ import annotations

import base64
import json
import shutil
import tarfile
import tempfile
from datetime import datetime
from pathlib import Path

from biny.core.errors import BinyError, SpaceExists
from biny.core.i18n import t
from biny.core.store.catalog import Catalog, SpaceRow
from biny.core.store.lance import ChunkStore

FORMAT = "biny-space-backup"


def _encode(v: object) -> object:
    if isinstance(v, bytes):
        return {"b64": base64.b64encode(v).decode()}
    if hasattr(v, "isoformat"):
        return {"ts": v.isoformat()}
    return v


def _decode(v: object) -> object:
    if isinstance(v, dict) and "b64" in v:
        return base64.b64decode(v["b64"])
    if isinstance(v, dict) and "ts" in v:
        return datetime.fromisoformat(v["ts"])
    return v


def export_space(catalog: Catalog, lance_dir: Path, row: SpaceRow, dest: Path) -> Path:
    rows = catalog.export_rows(row.space_id)
    payload = {"format": FORMAT, "version": 1,
               "rows": {table: [{k: _encode(v) for k, v in r.items()} for r in rs] for table, rs in rows.items()}}
    table_dir = lance_dir / f"{ChunkStore.table_name(row.space_id)}.lance"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        meta = Path(tmp) / "space.json"
        meta.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        with tarfile.open(dest, "w") as tar:
            tar.add(meta, arcname="space.json")
            if table_dir.exists():
                tar.add(table_dir, arcname="chunks.lance")
    return dest


def import_space(catalog: Catalog, lance_dir: Path, archive: Path, name: str | None) -> tuple[str, str]:
    """Restore a backup; returns (space_id, name). Nothing is left behind if it fails."""
    if not archive.exists():
        raise BinyError(t("No backup file at {archive}: check the path (biny space export NAME FILE.tar writes "
                          "one).").format(archive=archive))
    if not archive.is_file():
        raise BinyError(t("{archive} is not a file; give the .tar that biny space export wrote.")
                        .format(archive=archive))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            # Every member is read whole here: a truncated or damaged archive fails now, before anything is
            # written to this data folder (issue 59: it was an "internal error").
            with tarfile.open(archive, "r") as tar:
                tar.extractall(tmp, filter="data")
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            raise BinyError(t("{archive} is damaged or incomplete ({detail}); nothing was imported. Export the "
                              "space again, or use another copy of the backup.").format(archive=archive, detail=exc)) \
                from exc
        try:
            payload = json.loads((Path(tmp) / "space.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BinyError(t("{archive} is not a biny space backup ({detail}).")
                            .format(archive=archive, detail=exc)) from exc
        if not isinstance(payload, dict) or payload.get("format") != FORMAT or not isinstance(payload.get("rows"),
                                                                                               dict):
            raise BinyError(t("{archive} is not a biny space backup.").format(archive=archive))
        try:
            rows = {table: [{k: _decode(v) for k, v in r.items()} for r in rs]
                    for table, rs in payload["rows"].items()}
            if not rows["spaces"][0]["space_id"]:
                raise ValueError("no space id")
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise BinyError(t("{archive} is damaged or incomplete ({detail}); nothing was imported. Export the "
                              "space again, or use another copy of the backup.").format(archive=archive,
                                                                                      detail=repr(exc))) from exc
        space_row = rows["spaces"][0]
        if name:
            space_row["name"] = name
        space_id, space_name = str(space_row["space_id"]), str(space_row["name"])
        same = [s.name for s in catalog.spaces.all() if s.space_id == space_id]
        if same:
            # Its keys and ciphertext are bound to the space's id, so a second copy in one folder would need every
            # passage re-sealed; a copy lives in another data folder instead.
            raise SpaceExists(t("This backup's space is already in this data folder as {existing!r}. To keep a "
                                "second copy, import it into another data folder: biny --home OTHER_FOLDER space "
                                "import {archive}").format(existing=same[0], archive=archive))
        if any(s.name == space_name for s in catalog.spaces.all()):
            raise SpaceExists(t("A space named {space_name!r} exists; import with another --name.")
                               .format(space_name=space_name))
        src = Path(tmp) / "chunks.lance"
        dst = lance_dir / f"{ChunkStore.table_name(space_id)}.lance"
        if src.exists():
            shutil.copytree(src, dst)
        try:
            catalog.import_rows(rows)
        except Exception:
            shutil.rmtree(dst, ignore_errors=True)
            raise
    return space_id, space_name
