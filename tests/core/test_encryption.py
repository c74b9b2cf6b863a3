"""Encryption at rest, keys, blind index and decrypt-last (SPEC I8, R7)."""

from __future__ import annotations

import os
from pathlib import Path

import keyring
import pytest

from biny.core.config import Settings
from biny.core.crypto.secrets import SecretStore, keyring_status
from biny.core.engine import Engine
from biny.core.errors import DataTampered, PassphraseRequired, SecretStoreUnavailable, SpaceExists, WrongPassphrase
from tests.conftest import CountingEmbedder, MemoryKeyring

SECRET_SENTENCE = "The Zyphoria valve NX4471Q must be torqued to 42 newton metres before the blue seal is fitted."
SECRET_ZH = "第九百零一条 蓝色密封圈安装前，泽芙瑞亚阀门必须以四十二牛米的扭矩拧紧。"
PASS = "correct horse battery staple"


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BINY_PASSPHRASE", raising=False)


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    kr = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(kr)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.conftest.MemoryKeyring")
    yield kr
    keyring.set_keyring(previous)


def _doc(tmp_path: Path) -> Path:
    path = tmp_path / "valve-procedure.md"
    path.write_text(f"# Valve maintenance\n\n{SECRET_SENTENCE}\n\n{SECRET_ZH}\n\nOther routine steps follow.\n",
                    encoding="utf-8")
    return path


def _open(home: Path, embedder: CountingEmbedder, **security: object) -> Engine:
    settings = Settings()
    for k, v in security.items():
        setattr(settings.security, k, v)
    return Engine.open(home, settings=settings, embedder=embedder)


NEEDLES = [SECRET_SENTENCE, "Zyphoria", "NX4471Q", "newton metres", "泽芙瑞亚", "第九百零一条",
           "art:901", "valve-procedure", "Valve maintenance"]
# Memory (SPEC M, sealed like chunks: I8): a fact, a deleted fact, its scope and a conversation turn.
FACT_NEEDLES = ["Quillonby", "Marrowgate", "tenant:vexley", "Ostrander"]


def _scan(home: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for needle in NEEDLES + FACT_NEEDLES:
                for enc in ("utf-8", "utf-16-le"):
                    if needle.encode(enc) in data:
                        found.setdefault(needle, []).append(str(path.relative_to(home)))
    return found


@pytest.mark.parametrize("encrypted", [True, False])
def test_no_plaintext_anywhere_in_the_data_folder(tmp_path: Path, embedder: CountingEmbedder, encrypted: bool) -> None:
    home = tmp_path / "home"
    with _open(home, embedder) as eng:
        eng.create_space("plant", encrypted=encrypted)
        assert eng.ingest("plant", [_doc(tmp_path)]).ok
        hits = eng.ask("plant", "What torque does the Zyphoria valve NX4471Q need?").chunks
        assert hits and SECRET_SENTENCE in hits[0].text  # readable through the engine
        assert eng.documents("plant")[0].title == "Valve maintenance"
        assert eng.ask("plant", "第九百零一条规定了什么？").chunks[0].pinned  # blind index still finds it
        kept = eng.memory.add("Quillonby keeps the valve logbook.", "tenant:vexley/user:ana")
        gone = eng.memory.add("Marrowgate was the old supplier.", "tenant:vexley/user:ana")
        eng.memory.set_status(gone.fact_id, "deleted")
        eng.memory.add_turn("conv-1", "user", "Ask Ostrander about the valve.")
        assert [f.text for f in eng.memory.facts("tenant:vexley/user:ana")] == [kept.text]  # readable via the engine
        assert eng.memory.conversation("conv-1") == [("user", "Ask Ostrander about the valve.")]
        assert eng.memory.recall("Who keeps the valve logbook?", "tenant:vexley/user:ana").facts
    found = _scan(home)
    if encrypted:
        assert found == {}
    else:  # the control: the same scan does see an unencrypted space's text; memory is always sealed
        assert SECRET_SENTENCE in found and "NX4471Q" in found
        assert not set(FACT_NEEDLES) & set(found)


def test_wrong_and_missing_passphrase(tmp_path: Path, embedder: CountingEmbedder, no_env: None,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    with _open(home, embedder) as eng:
        eng.create_space("plant", passphrase=PASS, remember=False)
        eng.ingest("plant", [_doc(tmp_path)])
        before = eng.chunks.count(eng.catalog.spaces.named("plant").space_id)
    with _open(home, embedder) as eng:
        with pytest.raises(PassphraseRequired, match="BINY_PASSPHRASE"):
            eng.ask("plant", "torque?")
        with pytest.raises(WrongPassphrase, match="does not open space 'plant'"):
            eng.keys.unlock("plant", "wrong guess")
        assert eng.space("plant").locked
        assert eng.chunks.count(eng.catalog.spaces.named("plant").space_id) == before  # nothing changed
        monkeypatch.setenv("BINY_PASSPHRASE", "also wrong")
        with pytest.raises(WrongPassphrase):
            eng.ask("plant", "torque?")
        monkeypatch.delenv("BINY_PASSPHRASE")
        eng.keys.unlock("plant", PASS)
        assert eng.ask("plant", "What torque does the Zyphoria valve need?").chunks


def test_unencrypted_only_by_explicit_choice(tmp_path: Path, embedder: CountingEmbedder, no_env: None) -> None:
    with _open(tmp_path / "home", embedder) as eng:
        with pytest.raises(PassphraseRequired, match="--unencrypted"):
            eng.create_space("s")
        assert eng.spaces() == []
        info = eng.create_space("public", encrypted=False)
        assert not info.encrypted


def _tamper(eng: Engine, space: str, fn) -> None:  # type: ignore[no-untyped-def]
    sid = eng.catalog.spaces.named(space).space_id
    tbl = eng.chunks.db.open_table(eng.chunks.table_name(sid))
    rows = tbl.search().select(["chunk_id", "ct"]).limit(100).to_arrow().to_pylist()
    for chunk_id, ct in fn(rows):
        tbl.update(where=f"chunk_id = '{chunk_id}'", values={"ct": ct})
    eng.vectors.invalidate(sid)


def test_flipped_bit_and_swapped_records_are_detected(tmp_path: Path, embedder: CountingEmbedder) -> None:
    doc = tmp_path / "long.md"
    doc.write_text("\n\n".join(f"Paragraph {i}: the pump P-{i:03d} is serviced every {i + 2} weeks by the "
                               "night shift, who log pressure, temperature and vibration readings." * 3
                               for i in range(12)), encoding="utf-8")
    with _open(tmp_path / "home", embedder) as eng:
        eng.create_space("s")
        eng.ingest("s", [doc])
        q = "How often is pump P-003 serviced?"
        assert eng.ask("s", q, max_distance=2.0).chunks

        def flip(rows):  # type: ignore[no-untyped-def]
            ct = bytearray(rows[0]["ct"])
            ct[20] ^= 0x01
            return [(rows[0]["chunk_id"], bytes(ct))]

        _tamper(eng, "s", flip)
        # Issue 59: the question stops with a named error; nothing is answered from the passages that are left.
        with pytest.raises(DataTampered, match="failed its integrity check"):
            eng.ask("s", q, k=50, max_distance=2.0)

    with _open(tmp_path / "home2", embedder) as eng:
        eng.create_space("s")
        eng.ingest("s", [doc])

        def swap(rows):  # type: ignore[no-untyped-def]
            a, b = rows[0], rows[1]
            return [(a["chunk_id"], b["ct"]), (b["chunk_id"], a["ct"])]

        _tamper(eng, "s", swap)
        with pytest.raises(DataTampered, match="2 passage\\(s\\) no longer match their integrity code"):
            eng.ask("s", q, k=50, max_distance=2.0)
        with pytest.raises(DataTampered, match="belong to another record"):
            eng.document_chunks("s", eng.documents("s")[0].doc_id)  # reading the document whole says so


def test_change_passphrase_rewraps_only(tmp_path: Path, embedder: CountingEmbedder, no_env: None) -> None:
    home = tmp_path / "home"
    with _open(home, embedder) as eng:
        eng.create_space("a", passphrase=PASS, remember=False)
        eng.create_space("b", passphrase=PASS, remember=False)
        eng.ingest("a", [_doc(tmp_path)])
        sid = eng.catalog.spaces.named("a").space_id
        before = {r.chunk_id: r.ct for r in eng.chunks.doc_chunks(sid, eng.documents("a")[0].doc_id)}
        with pytest.raises(WrongPassphrase):
            eng.keys.change_passphrase("a", "not it", "a new passphrase")
        assert sorted(eng.keys.change_passphrase("a", PASS, "a new passphrase")) == ["a", "b"]
        after = {r.chunk_id: r.ct for r in eng.chunks.doc_chunks(sid, eng.documents("a")[0].doc_id)}
        assert after == before  # no chunk was re-encrypted
    with _open(home, embedder) as eng:
        with pytest.raises(WrongPassphrase):
            eng.keys.unlock("a", PASS)
        eng.keys.unlock("a", "a new passphrase")
        eng.keys.unlock("b", "a new passphrase")
        assert SECRET_SENTENCE in eng.ask("a", "What torque does the Zyphoria valve need?").chunks[0].text


def test_keyring_per_tenant_and_user(tmp_path: Path, embedder: CountingEmbedder, no_env: None,
                                     memory_keyring: MemoryKeyring) -> None:
    home = tmp_path / "home"
    with _open(home, embedder, tenant="acme", user="ana") as eng:
        eng.create_space("ana-notes", passphrase=PASS)  # remembered in the keyring
        eng.ingest("ana-notes", [_doc(tmp_path)])
        assert memory_keyring.store == {("biny:acme", "ana"): PASS}
        assert any("OS keyring" in n for n in eng.keys.take_notices())
        assert eng.keys.take_notices() == []  # each notice is given once
    with _open(home, embedder, tenant="acme", user="ana") as eng:
        assert eng.ask("ana-notes", "What torque does the Zyphoria valve need?").chunks  # from the keyring
    memory_keyring.store[("biny:acme", "bob")] = "bob's own passphrase"
    memory_keyring.store[("biny:acme", "ana")] = "bob's own passphrase"  # another user's secret
    with _open(home, embedder, tenant="acme", user="bob") as eng:
        with pytest.raises(WrongPassphrase):
            eng.ask("ana-notes", "torque?")


def test_no_silent_plaintext_keyring(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_env: None) -> None:
    from keyrings.alt.file import PlaintextKeyring

    previous = keyring.get_keyring()
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    keyring.set_keyring(PlaintextKeyring())
    try:
        usable, name = keyring_status()
        assert not usable and "keyrings.alt" in name
        store = SecretStore(tmp_path)
        with pytest.raises(SecretStoreUnavailable, match="BINY_PASSPHRASE"):
            store.remember("t", "u", "pw")
        assert "no OS keyring" in store.describe()
    finally:
        keyring.set_keyring(previous)


def test_opt_in_file_secrets_are_0600(tmp_path: Path, no_env: None) -> None:
    store = SecretStore(tmp_path, file_secrets=True)
    assert "file" in store.remember("t", "u", "pw")
    path = tmp_path / "secrets.json"
    assert (path.stat().st_mode & 0o777) == 0o600
    assert store.get("t", "u") == "pw"
    os.chmod(path, 0o644)
    with pytest.raises(SecretStoreUnavailable, match="chmod 600"):
        store.get("t", "u")


def test_export_import_keeps_it_encrypted(tmp_path: Path, embedder: CountingEmbedder) -> None:
    backup = tmp_path / "plant.tar"
    with _open(tmp_path / "home", embedder) as eng:
        eng.create_space("plant")
        eng.ingest("plant", [_doc(tmp_path)])
        eng.backup.export_space("plant", backup)
        # A second copy in the same folder is refused with the form that works (its keys are bound to its id).
        with pytest.raises(SpaceExists, match=r"already in this data folder as 'plant'.*biny --home OTHER_FOLDER"):
            eng.backup.import_space(backup, name="plant-copy")
        assert [s.name for s in eng.spaces()] == ["plant"]
    assert b"Zyphoria" not in backup.read_bytes() and b"NX4471Q" not in backup.read_bytes()
    with _open(tmp_path / "other", embedder) as eng:
        info = eng.backup.import_space(backup, name="restored")
        assert info.encrypted and info.documents == 1
        hits = eng.ask("restored", "What torque does the Zyphoria valve NX4471Q need?").chunks
        assert hits and SECRET_SENTENCE in hits[0].text


def test_opened_metadata_is_reused_until_the_space_changes(tmp_path: Path, embedder: CountingEmbedder,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Document metadata is decrypted once per matrix generation, not on every question."""
    from biny.core.crypto.space import SpaceCrypto

    opened: list[str] = []
    real = SpaceCrypto.open_meta

    def counting(self: SpaceCrypto, doc):  # type: ignore[no-untyped-def]
        opened.append(doc.doc_id)
        return real(self, doc)

    monkeypatch.setattr(SpaceCrypto, "open_meta", counting)
    q = "What torque is the Zyphoria valve tightened to?"
    with _open(tmp_path / "home", embedder) as eng:
        eng.create_space("s")
        eng.ingest("s", [_doc(tmp_path)])
        first = eng.ask("s", q, max_distance=2.0)
        assert [h.document for h in first.chunks][:1] == ["Valve maintenance"]
        opened.clear()
        again = eng.ask("s", q, max_distance=2.0)
        assert opened == []  # nothing decrypted for metadata the second time
        assert [h.document for h in again.chunks] == [h.document for h in first.chunks]

        extra = tmp_path / "seal-colours.md"
        extra.write_text("# Seal colours\n\nThe Zyphoria valve's blue seal is replaced by a green seal in "
                         "winter; the torque stays at 42 newton metres.\n", encoding="utf-8")
        eng.ingest("s", [extra])
        after = eng.ask("s", q, max_distance=2.0)
        assert opened, "a write to the space must reopen the metadata"
        assert "Seal colours" in {h.document for h in after.chunks}

        valve = next(d for d in eng.documents("s") if d.title == "Valve maintenance")
        eng.set_document_status("s", valve.doc_id, "archived")
        archived = eng.ask("s", q, max_distance=2.0)
        assert archived.chunks and "Valve maintenance" not in {h.document for h in archived.chunks}


def test_a_refused_passphrase_is_not_tried_again_on_every_listing(tmp_path: Path, embedder: CountingEmbedder,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from biny.core.services import keys as keys_mod

    with _open(tmp_path / "home", embedder) as eng:
        eng.create_space("vault", passphrase="the right one", remember=False)
        eng.keys.lock_all()
        monkeypatch.setenv("BINY_PASSPHRASE", "a wrong one")
        calls: list[str] = []
        real = keys_mod.unwrap
        monkeypatch.setattr(keys_mod, "unwrap", lambda *a, **k: (calls.append("unwrap"), real(*a, **k))[1])
        for _ in range(3):
            assert [s.locked for s in eng.spaces()] == [True]
        assert calls == ["unwrap"]  # one scrypt, not one per listing
        eng.keys.unlock("vault", "the right one")
        assert [s.locked for s in eng.spaces()] == [False]
