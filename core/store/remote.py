"""A team space on S3-compatible object storage (issue 21): one writer across machines, snapshot readers.

LanceDB keeps the chunk tables in the bucket itself (``<uri>/lance``). DuckDB cannot write to S3, so the
writer works on a local copy of the catalog and, after every write, *publishes* it: the catalog file goes to a
new object and ``manifest.json`` is replaced to name it, together with the version of every chunk table at
that moment. A reader downloads the catalog the manifest names and opens each chunk table at the recorded
version, so what it sees is one consistent state — never a table ahead of its catalog (rows of a document
the catalog does not know, or an old revision's rows gone) — until it refreshes.

One writer at a time, across machines: ``lease.json`` in the bucket names the holder and an expiry. It is
created with ``If-None-Match: *`` and renewed or taken over with ``If-Match: <etag>`` — S3's conditional
writes, so two machines racing for it cannot both win. The holder renews it every third of its term; a
machine that crashed stops renewing and its lease expires. A writer that finds its lease gone (taken after
expiring, e.g. while the machine slept) stops writing: its next write is refused with what happened.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from biny.core.config import StorageSettings
from biny.core.errors import ConfigError, ObjectStoreUnavailable
from biny.core.i18n import t

# Catalog snapshots kept besides the current one: a reader may still be downloading the one before.
_KEEP_SNAPSHOTS = 3


def is_remote(settings: StorageSettings) -> bool:
    return bool(settings.uri.strip())


@dataclass(frozen=True, slots=True)
class Bucket:
    """An S3 location (bucket + prefix) and the credentials to reach it, from ``[storage]``."""

    uri: str
    bucket: str
    prefix: str
    endpoint: str
    region: str
    key_id: str
    secret: str
    allow_http: bool

    @classmethod
    def from_settings(cls, s: StorageSettings) -> Bucket:
        parsed = urlparse(s.uri.strip())
        if parsed.scheme != "s3" or not parsed.netloc:
            raise ConfigError(t("[storage] uri {uri!r} is not an s3:// address (s3://bucket/prefix). Fix it in "
                                "config.toml, or empty it to keep the data in this folder.").format(uri=s.uri))
        key_id, secret = os.environ.get(s.access_key_env, ""), os.environ.get(s.secret_key_env, "")
        if not key_id or not secret:
            raise ObjectStoreUnavailable(
                t("The team space at {uri} needs credentials: set {access_key_env} and {secret_key_env} (the "
                  "variable names are [storage] access_key_env / secret_key_env in config.toml).")
                 .format(uri=s.uri, access_key_env=s.access_key_env, secret_key_env=s.secret_key_env))
        return cls(s.uri.strip().rstrip("/"), parsed.netloc, parsed.path.strip("/"), s.endpoint, s.region,
                   key_id, secret, s.allow_http)

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    @property
    def lance_uri(self) -> str:
        return f"{self.uri}/lance"

    def lance_options(self) -> dict[str, str]:
        """LanceDB's ``storage_options`` for the same bucket."""
        opts = {"aws_access_key_id": self.key_id, "aws_secret_access_key": self.secret, "aws_region": self.region}
        if self.endpoint:
            opts["aws_endpoint"] = self.endpoint
        if self.allow_http:
            opts["allow_http"] = "true"
        return opts

    def client(self) -> Any:
        import boto3
        from botocore.config import Config

        return boto3.client("s3", endpoint_url=self.endpoint or None, region_name=self.region,
                            aws_access_key_id=self.key_id, aws_secret_access_key=self.secret,
                            config=Config(retries={"max_attempts": 3, "mode": "standard"},
                                          connect_timeout=10, read_timeout=60))


def _code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def _unreachable(bucket: Bucket, exc: Exception) -> ObjectStoreUnavailable:
    return ObjectStoreUnavailable(
        t("The team space at {uri} cannot be reached ({detail}). Check the network, the endpoint and the credentials "
          "in config.toml's [storage]; nothing stored was changed.").format(uri=bucket.uri, detail=exc))


def _read_json(s3: Any, bucket: Bucket, key: str) -> tuple[dict[str, Any], str] | None:
    """A small JSON object of the bucket and its etag; None when it does not exist."""
    try:
        got = s3.get_object(Bucket=bucket.bucket, Key=key)
    except Exception as exc:  # botocore raises one class for every status
        if _code(exc) in ("NoSuchKey", "404"):
            return None
        raise _unreachable(bucket, exc) from exc
    return json.loads(got["Body"].read()), str(got["ETag"])


@dataclass(frozen=True, slots=True)
class LeaseInfo:
    holder: str  # a random id per session
    who: str  # user@host (pid): for the message another machine shows
    expires: float  # epoch seconds, by the holder's clock

    def until(self) -> str:
        return datetime.fromtimestamp(self.expires, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class Lease:
    """The writer lease of one team space (see the module docstring)."""

    def __init__(self, bucket: Bucket, client: Any, term_s: float, clock: Callable[[], float] = time.time) -> None:
        self._bucket = bucket
        self._s3 = client
        self._term = term_s
        self._clock = clock
        self._key = bucket.key("lease.json")
        self.holder = uuid.uuid4().hex
        self.who = f"{getpass.getuser()}@{socket.gethostname()} (pid {os.getpid()})"
        self._etag: str | None = None
        self._renewing = threading.Lock()
        self.lost: str | None = None  # why this session no longer holds the lease
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    @property
    def held(self) -> bool:
        return self._etag is not None and self.lost is None

    def current(self) -> tuple[LeaseInfo, str] | None:
        """The lease as stored and its etag, or None when nobody holds one."""
        got = _read_json(self._s3, self._bucket, self._key)
        if got is None:
            return None
        data, etag = got
        return LeaseInfo(data["holder"], data["who"], float(data["expires"])), etag

    def _put(self, **condition: str) -> bool:
        body = json.dumps({"holder": self.holder, "who": self.who, "expires": self._clock() + self._term})
        try:
            put = self._s3.put_object(Bucket=self._bucket.bucket, Key=self._key, Body=body.encode(), **condition)
        except Exception as exc:
            if _code(exc) in ("PreconditionFailed", "412", "ConditionalRequestConflict", "409"):
                return False
            raise _unreachable(self._bucket, exc) from exc
        self._etag = str(put["ETag"])
        return True

    def acquire(self) -> LeaseInfo | None:
        """Take the lease; None when taken, else who holds it (unexpired)."""
        for _ in range(3):  # a race lost to a machine that then released: look again
            now = self.current()
            if now is None:
                if self._put(IfNoneMatch="*"):
                    return None
                continue
            info, etag = now
            if info.expires > self._clock():
                return info
            if self._put(IfMatch=etag):  # expired: take it over, unless someone else just did
                return None
        now = self.current()
        return now[0] if now else LeaseInfo("?", "another machine", self._clock())

    def renew(self) -> bool:
        """Extend the term; False (and ``lost`` set) when the lease was taken in the meantime."""
        # One renewal at a time: the heartbeat and the check before a write both renew, and the second of two
        # concurrent conditional PUTs would fail on the first's new etag and be taken for a lost lease.
        with self._renewing:
            if not self.held or self._etag is None:
                return False
            if self._put(IfMatch=self._etag):
                return True
        now = self.current()
        who = now[0].who if now else "nobody (it was removed)"
        self.lost = (t("This machine's writer lease on the team space expired and is now held by {who}; nothing more "
                       "was written from here. Reopen the space to continue (read-only until that writer closes).")
                      .format(who=who))
        return False

    def start_heartbeat(self) -> None:
        def beat() -> None:
            while not self._stop.wait(self._term / 3):
                try:
                    if not self.renew():
                        return
                except ObjectStoreUnavailable:
                    continue  # a network blip: try again next beat; the term covers two misses

        self._beat = threading.Thread(target=beat, name="biny-lease", daemon=True)
        self._beat.start()

    def release(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=5)
        if self._etag is not None and self.lost is None:
            try:
                self._s3.delete_object(Bucket=self._bucket.bucket, Key=self._key, IfMatch=self._etag)
            except Exception:  # noqa: BLE001 — taken over or unreachable: it expires on its own
                pass
        self._etag = None


@dataclass(frozen=True, slots=True)
class Manifest:
    catalog_key: str
    versions: dict[str, int]  # chunk table name → LanceDB version at publication
    published: float
    by: str
    etag: str = ""


class Snapshots:
    """Catalog snapshots and the manifest naming the current one."""

    def __init__(self, bucket: Bucket, client: Any) -> None:
        self._bucket = bucket
        self._s3 = client
        self._key = bucket.key("manifest.json")

    def manifest(self) -> Manifest | None:
        got = _read_json(self._s3, self._bucket, self._key)
        if got is None:
            return None
        data, etag = got
        return Manifest(data["catalog"], {k: int(v) for k, v in data["versions"].items()}, float(data["published"]),
                        str(data["by"]), etag)

    def download(self, manifest: Manifest, dest: Path) -> None:
        tmp = dest.with_name(dest.name + ".part")
        try:
            self._s3.download_file(self._bucket.bucket, manifest.catalog_key, str(tmp))
        except Exception as exc:
            tmp.unlink(missing_ok=True)
            raise _unreachable(self._bucket, exc) from exc
        tmp.replace(dest)

    def publish(self, catalog_file: Path, versions: dict[str, int], by: str) -> Manifest:
        """Upload the catalog file as a new object, then point the manifest at it; older snapshots beyond the
        last few are removed."""
        key = self._bucket.key(f"catalog/{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.duckdb")
        try:
            self._s3.upload_file(str(catalog_file), self._bucket.bucket, key)
            body = {"catalog": key, "versions": versions, "published": time.time(), "by": by}
            put = self._s3.put_object(Bucket=self._bucket.bucket, Key=self._key, Body=json.dumps(body).encode())
            listed = self._s3.list_objects_v2(Bucket=self._bucket.bucket, Prefix=self._bucket.key("catalog/"))
            old = sorted(o["Key"] for o in listed.get("Contents", []))[:-_KEEP_SNAPSHOTS]
            for stale in old:
                self._s3.delete_object(Bucket=self._bucket.bucket, Key=stale)
        except Exception as exc:
            raise _unreachable(self._bucket, exc) from exc
        return Manifest(key, versions, body["published"], by, str(put["ETag"]))  # type: ignore[arg-type]
