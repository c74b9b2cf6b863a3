"""Keys for this session: space data keys, the owner's memory key, passphrases (SPEC I8, C7).

Every data key is opened in one place (``_unwrap``) and cached for the session.
A passphrase comes from the console/CLI prompt, ``BINY_PASSPHRASE``, the OS keyring
or (opt-in) a 0600 file — see ``crypto/secrets.py``.
"""

from __future__ import annotations

import getpass
import threading

from biny.core.config import Settings
from biny.core.crypto.blind import forget_blinded
from biny.core.crypto.keys import SpaceKeys, new_wrapped_key, unwrap, wrap
from biny.core.crypto.memory import MEMORY_KEY_ID, MemoryCrypto
from biny.core.crypto.secrets import SecretStore
from biny.core.crypto.space import SpaceCrypto
from biny.core.errors import BinyError, PassphraseRequired, SecretStoreUnavailable, WrongPassphrase
from biny.core.i18n import Said, msg, t
from biny.core.services.folder import DataFolder
from biny.core.store.catalog import SpaceRow
from biny.core.store.rowmac import derive_key


class KeySession:
    def __init__(self, folder: DataFolder) -> None:
        self.folder = folder
        self.secrets = SecretStore(folder.home, folder.settings.security.file_secrets)
        self._keys: dict[str, SpaceKeys] = {}
        self._memory: SpaceKeys | None = None
        # The passphrase that last opened something of this owner in this session: memory
        # is sealed with the same passphrase as the owner's spaces.
        self._session_secret: str | None = None
        # Things the user should know (where a secret went, what a check found), until a caller takes them.
        self.notices: list[Said] = []
        # Console operations run on a thread pool: two first writes to memory must not each
        # mint a memory key (the second would replace the first and orphan what it sealed).
        self._memory_lock = threading.Lock()
        # (space id, passphrase) pairs already refused: listing spaces asks "unlocked?" on every
        # refresh, and each attempt is a full scrypt (~0.1 s) that would only fail again.
        self._refused: dict[tuple[str, str], WrongPassphrase] = {}
        # Row-code keys (store/rowmac.py) by space id: derived from a data key, or a plaintext space's from the catalog.
        self._mac_keys: dict[str, bytes] = {}
        folder.writer.mac_key = self.mac_key

    @property
    def settings(self) -> Settings:
        return self.folder.settings

    @property
    def owner(self) -> tuple[str, str]:
        """(tenant, user) this engine acts for (settings, else the OS login name)."""
        sec = self.settings.security
        return sec.tenant, sec.user or getpass.getuser()

    def _secret(self, tenant: str, user: str) -> str | None:
        if self._session_secret is not None and (tenant, user) == self.owner:
            return self._session_secret
        return self.secrets.get(tenant, user)

    def can_remember(self) -> bool:
        """Is there somewhere to keep a passphrase: a usable OS keyring, or the opted-in 0600 file?"""
        from biny.core.crypto.secrets import keyring_status

        return keyring_status()[0] or self.settings.security.file_secrets

    def has_secret(self) -> bool:
        """Is a passphrase available for this owner without asking?"""
        return self._secret(*self.owner) is not None

    def _unwrap(self, secret: str, kdf: str, wrapped: bytes | None, key_id: str, tenant: str, owner: str,
                name: str) -> SpaceKeys:
        """The one place a wrapped data key is opened (WrongPassphrase if ``secret`` does not open it)."""
        return unwrap(secret, kdf, wrapped or b"", key_id, tenant, owner, name)

    # ---- spaces ---------------------------------------------------------------------------
    def new_space_keys(self, row: SpaceRow, passphrase: str | None, remember: bool) -> None:
        """Give a new encrypted space its data key (sets ``row.kdf`` / ``row.wrapped_key``)."""
        secret = passphrase or self._secret(row.tenant, row.owner)
        if not secret:
            raise PassphraseRequired(
                t("Space {name} will be encrypted and needs a passphrase: enter one when asked, set BINY_PASSPHRASE, "
                  "or create it with --unencrypted if its content is not confidential.").format(name=repr(row.name))
            )
        keys, row.kdf, row.wrapped_key = new_wrapped_key(secret, row.space_id, row.tenant, row.owner)
        self._keys[row.space_id] = keys
        if passphrase and remember and self.secrets.get(row.tenant, row.owner) != passphrase:
            self.remember(row.tenant, row.owner, passphrase)

    def remember(self, tenant: str, user: str, passphrase: str) -> None:
        try:
            where = self.secrets.remember(tenant, user, passphrase)
            self.notices.append(msg("Passphrase for {tenant}/{user} stored in the {where}.").format(
                tenant=tenant, user=user, where=where))
        except SecretStoreUnavailable as exc:
            self.notices.append(str(exc))

    def forget(self, space_id: str) -> None:
        self._keys.pop(space_id, None)
        self._mac_keys.pop(space_id, None)

    def mac_key(self, row: SpaceRow) -> bytes | None:
        """The key of the space's row codes (issue 59): derived from its data key (PassphraseRequired when
        locked), or a plaintext space's own from the catalog (None before it was made, at the next open)."""
        key = self._mac_keys.get(row.space_id)
        if key is None:
            if row.encrypted:
                return self.crypto(row).mac_key
            key = self.folder.catalog.spaces.row_key(row.space_id)
            if key is None:
                return None
            self._mac_keys[row.space_id] = key
        return key

    def forget_all(self) -> None:
        """Drop every key and passphrase held by this session (a new session begins locked)."""
        self._keys.clear()
        self._mac_keys.clear()
        self._memory = None
        self._session_secret = None
        self._refused.clear()
        forget_blinded()  # the blinding memo holds index keys and question terms

    def is_unlocked(self, row: SpaceRow) -> bool:
        """Open without asking? Unencrypted, already unlocked, or its secret source opens it."""
        if not row.encrypted or row.space_id in self._keys:
            return True
        try:
            self.crypto(row)
        except (PassphraseRequired, WrongPassphrase):
            return False
        return True

    def crypto(self, row: SpaceRow) -> SpaceCrypto:
        """The space's keys: from this session, else the configured secret source."""
        if not row.encrypted:
            return SpaceCrypto(row.space_id, None, self.mac_key(row))
        keys = self._keys.get(row.space_id)
        if keys is None:
            secret = self._secret(row.tenant, row.owner)
            if not secret:
                raise PassphraseRequired(
                    t("Space {name} is encrypted and no passphrase is available here (secret source: {source}). Unlock "
                      "it in the console, set BINY_PASSPHRASE, or run `biny space unlock {plain} --remember`.").format(
                        name=repr(row.name), source=self.secrets.describe(), plain=row.name)
                )
            refused = self._refused.get((row.space_id, secret))
            if refused is not None:
                raise refused
            try:
                keys = self._unwrap(secret, row.kdf, row.wrapped_key, row.space_id, row.tenant, row.owner, row.name)
            except WrongPassphrase as exc:
                self._refused[(row.space_id, secret)] = exc
                raise
            self._keys[row.space_id] = keys
        mac = self._mac_keys.get(row.space_id)
        if mac is None:
            mac = self._mac_keys[row.space_id] = derive_key(keys.data_key)
        return SpaceCrypto(row.space_id, keys, mac)

    def unlock(self, row: SpaceRow, passphrase: str, *, remember: bool = False) -> None:
        """Open an encrypted space with its passphrase for this session (WrongPassphrase if not)."""
        if not row.encrypted:
            return
        self._keys[row.space_id] = self._unwrap(passphrase, row.kdf, row.wrapped_key, row.space_id, row.tenant,
                                                row.owner, row.name)
        if (row.tenant, row.owner) == self.owner:
            self._session_secret = passphrase
        if remember:
            self.remember(row.tenant, row.owner, passphrase)

    def change_passphrase(self, target: SpaceRow, old: str, new: str) -> list[str]:
        """Re-wrap every data key of the owner that ``old`` opens (no re-encryption); names re-wrapped."""
        if not target.encrypted:
            raise BinyError(t("Space {name!r} is not encrypted.").format(name=target.name))
        if not new:
            raise WrongPassphrase(t("The new passphrase is empty; choose one."))
        self._unwrap(old, target.kdf, target.wrapped_key, target.space_id, target.tenant, target.owner, target.name)
        owner = (target.tenant, target.owner)
        changed = []
        writer = self.folder.writer
        for row in self.folder.catalog.spaces.all():
            if not row.encrypted or (row.tenant, row.owner) != owner:
                continue
            try:
                keys = self._unwrap(old, row.kdf, row.wrapped_key, row.space_id, row.tenant, row.owner, row.name)
            except WrongPassphrase:
                continue
            kdf, wrapped = wrap(keys.data_key, new, row.space_id, row.tenant, row.owner)
            writer.keys.set_wrapped_key(row.space_id, kdf, wrapped)
            self._keys[row.space_id] = keys
            changed.append(row.name)
        stored = self.folder.catalog.memory_keys.get(*owner)
        if stored is not None:
            try:
                memory = self._unwrap(old, stored[0], stored[1], MEMORY_KEY_ID, *owner, "memory")
            except WrongPassphrase:
                pass  # sealed with another passphrase: it keeps that one
            else:
                writer.keys.set_memory_key(*owner, *wrap(memory.data_key, new, MEMORY_KEY_ID, *owner))
                changed.append("(memory)")
        # The old wrappings are overwritten above, but their bytes would stay in the file's freed blocks:
        # anyone with a copy and the old passphrase could open the data keys with them.
        writer.keys.scrub()
        self._refused.clear()  # a passphrase refused before may open the re-wrapped keys
        if owner == self.owner:
            self._session_secret = new
        if self.secrets.get(*owner) == old:
            self.remember(*owner, new)
        return changed

    # ---- memory ---------------------------------------------------------------------------
    def memory_crypto(self, *, create: bool) -> MemoryCrypto | None:
        """The owner's memory key; made with the owner's passphrase on first write (``create``).

        None when no key exists yet and ``create`` is False: nothing was ever stored, so a read
        has nothing to open and must not mint a key with whichever passphrase happens to be at hand.
        """
        tenant, user = self.owner
        with self._memory_lock:
            return self._memory_crypto(tenant, user, create)

    def _memory_crypto(self, tenant: str, user: str, create: bool) -> MemoryCrypto | None:
        if self._memory is None:
            stored = self.folder.catalog.memory_keys.get(tenant, user)
            if stored is None and not create:
                return None
            candidates = [c for c in dict.fromkeys([self._session_secret, self.secrets.get(tenant, user)]) if c]
            if not candidates:
                raise PassphraseRequired(
                    t("Memory is encrypted with your passphrase and none is available here (secret source: {value}). "
                      "Set BINY_PASSPHRASE, unlock a space in the console, or run `biny space unlock NAME "
                      "--remember`.").format(value=self.secrets.describe())
                )
            if stored is None:
                keys, kdf, wrapped = new_wrapped_key(candidates[0], MEMORY_KEY_ID, tenant, user)
                self.folder.writer.keys.set_memory_key(tenant, user, kdf, wrapped)
            else:
                keys = self._open_memory_key(stored, candidates)
            self._memory = keys
        return MemoryCrypto(f"{tenant}/{user}", self._memory)

    def _open_memory_key(self, stored: tuple[str, bytes], candidates: list[str]) -> SpaceKeys:
        tenant, user = self.owner
        for secret in candidates:  # the passphrase unlocked in this session, then the secret source
            try:
                return self._unwrap(secret, stored[0], stored[1], MEMORY_KEY_ID, tenant, user, "memory")
            except WrongPassphrase:
                continue
        raise WrongPassphrase(
            t("Memory of {tenant}/{user} is sealed with a passphrase that none of the available ones opens (tried "
              "{count}). Unlock a space that uses that passphrase, or set BINY_PASSPHRASE to it.")
             .format(tenant=tenant, user=user, count=len(candidates))
        )


class Keys:
    """``engine.keys``: passphrases and the spaces' keys for this session, by space name (I8; issue 56 took them
    off the Engine). The services use the ``KeySession`` beneath, by space row."""

    def __init__(self, session: KeySession, folder: DataFolder) -> None:
        self._session = session
        self._folder = folder

    @property
    def owner(self) -> tuple[str, str]:
        """(tenant, user) of this session."""
        return self._session.owner

    def take_notices(self) -> list[Said]:
        """Things the user should know (e.g. where a passphrase was stored), each given once: taking them empties
        the list, so two readers never show one twice and no caller clears another's state (issue 56)."""
        taken, self._session.notices[:] = list(self._session.notices), []
        return taken

    def passphrase_available(self) -> bool:
        """Can this owner's spaces open without asking for a passphrase?"""
        return self._session.has_secret()

    def can_remember_passphrase(self) -> bool:
        """Can a passphrase be remembered here (OS keyring, or the opted-in file)?"""
        return self._session.can_remember()

    def secret_source(self) -> str:
        """Where passphrases come from on this machine, in words."""
        return self._session.secrets.describe()

    def crypto(self, space: str) -> SpaceCrypto:
        """The space's keys for this session (PassphraseRequired / WrongPassphrase if not openable)."""
        return self._session.crypto(self._folder.catalog.spaces.named(space))

    def unlock(self, space: str, passphrase: str, *, remember: bool = False) -> None:
        """Open an encrypted space with its passphrase for this session (WrongPassphrase if not)."""
        self._session.unlock(self._folder.catalog.spaces.named(space), passphrase, remember=remember)

    def lock_all(self) -> None:
        """Forget every key and passphrase this session holds."""
        self._session.forget_all()

    def change_passphrase(self, space: str, old: str, new: str) -> list[str]:
        """Re-wrap the data keys of this owner that ``old`` opens; returns the names re-wrapped."""
        return self._session.change_passphrase(self._folder.catalog.spaces.named(space), old, new)
