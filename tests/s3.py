"""A loopback S3 server (moto, with conditional writes) and [storage] settings for it: team-space tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from biny.core.config import Settings


@pytest.fixture(scope="session")
def s3() -> Iterator[str]:
    moto_server = pytest.importorskip("moto.server")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def bucket(s3: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket per test, and the credentials' variables the settings name."""
    boto3 = pytest.importorskip("boto3")
    monkeypatch.setenv("TEAM_KEY_ID", "testing")
    monkeypatch.setenv("TEAM_SECRET", "testing")
    name = ("team-" + request.node.name.replace("_", "-").lower())[:50].rstrip("-")
    boto3.client("s3", endpoint_url=s3, region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket=name)
    return name


def team_settings(s3: str, bucket: str) -> Settings:
    s = Settings()
    s.storage.uri = f"s3://{bucket}/biny"
    s.storage.endpoint = s3
    s.storage.allow_http = True
    s.storage.access_key_env, s.storage.secret_key_env = "TEAM_KEY_ID", "TEAM_SECRET"
    return s
