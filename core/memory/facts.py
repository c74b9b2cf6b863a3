"""Facts: text per scope with status and revision, embedded with the same model.

The domain type and its rules. Storage is ``store/facts.py`` (sealed rows, vector in
the same row so the M5 re-check reads status, scope, revision and text in one
consistent read, and an edit changes text, vector and revision together); the
service is ``services/memory.py`` (``engine.memory``). Fact stores are small (per
user/agent), so exact search over a scope's rows is the right index.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from biny.core.errors import BinyError
from biny.core.i18n import t

STATUSES = ("active", "archived", "deleted")


class FactNotFound(BinyError):
    pass


@dataclass(slots=True)
class Fact:
    fact_id: str
    scope: str
    text: str
    status: str
    revision: int
    created_at: datetime
    updated_at: datetime
    source: str


def check_scope(scope: str) -> str:
    scope = scope.strip()
    if not scope or len(scope) > 300 or any(c in scope for c in "\n\r\x00"):
        raise BinyError(t("A scope is a non-empty string such as 'user:ana' or 'tenant:acme/user:ana'."))
    return scope
