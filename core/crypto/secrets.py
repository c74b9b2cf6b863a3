"""Where a space's passphrase comes from — and never a silent plaintext fallback.

Order: an explicit passphrase (console dialog, CLI prompt) → ``BINY_PASSPHRASE`` →
the OS keyring, under ``biny:<tenant>`` / ``<user>`` → the opt-in file store
(``<home>/secrets.json``, mode 0600, only when ``security.file_secrets = true``).

Headless Linux has no keyring backend; ``keyrings.alt``'s plaintext file backend
is treated as "no secure keyring" too, so secrets never land in a world-readable
file without the user choosing it.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from biny.core.errors import SecretStoreUnavailable
from biny.core.i18n import t

ENV = "BINY_PASSPHRASE"
_INSECURE = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")


def keyring_status() -> tuple[bool, str]:
    """(usable, backend name) of the OS keyring in effect.

    The fail/null backends are never usable; keyrings.alt (plaintext files) only when
    the user chose it explicitly through ``PYTHON_KEYRING_BACKEND``.
    """
    import keyring

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    if name.startswith(_INSECURE[:2]):
        return False, name
    if name.startswith("keyrings.alt") and not os.environ.get("PYTHON_KEYRING_BACKEND"):
        return False, name
    return True, name


@dataclass(slots=True)
class SecretStore:
    home: Path
    file_secrets: bool = False

    def _file(self) -> Path:
        return self.home / "secrets.json"

    def _read_file(self) -> dict[str, str]:
        path = self._file()
        if not path.exists():
            return {}
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise SecretStoreUnavailable(
                t("{path} is readable by other users (mode {value}); run `chmod 600 {path}` first.")
                 .format(path=path, value=oct(mode))
            )
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in data.items()}

    def describe(self) -> str:
        if os.environ.get(ENV):
            return t("environment variable {name}").format(name=ENV)
        usable, name = keyring_status()
        if usable:
            return t("OS keyring ({name})").format(name=name)
        if self.file_secrets:
            return t("file {path} (0600, opted in)").format(path=self._file())
        return t("none: no OS keyring on this machine (use BINY_PASSPHRASE, the prompt, or security.file_secrets)")

    def get(self, tenant: str, user: str) -> str | None:
        env = os.environ.get(ENV)
        if env:
            return env
        usable, _ = keyring_status()
        if usable:
            import keyring

            value = keyring.get_password(f"biny:{tenant}", user)
            if value:
                return str(value)
        if self.file_secrets:
            return self._read_file().get(f"{tenant}/{user}")
        return None

    def remember(self, tenant: str, user: str, passphrase: str) -> str:
        """Store the passphrase where it can be found next time; returns where, or raises."""
        usable, name = keyring_status()
        if usable:
            import keyring

            keyring.set_password(f"biny:{tenant}", user, passphrase)
            return t("OS keyring ({name})").format(name=name)
        if self.file_secrets:
            data = self._read_file()
            data[f"{tenant}/{user}"] = passphrase
            path = self._file()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.chmod(path, 0o600)
            return t("file {path} (0600, opted in)").format(path=path)
        raise SecretStoreUnavailable(
            t("No secure keyring is available on this machine, so the passphrase was not stored. Set {variable}, "
              "enter it when asked, or opt in to a 0600 file with security.file_secrets = true.").format(variable=ENV)
        )

    def forget(self, tenant: str, user: str) -> None:
        usable, _ = keyring_status()
        if usable:
            import keyring
            import keyring.errors

            try:
                keyring.delete_password(f"biny:{tenant}", user)
            except keyring.errors.PasswordDeleteError:
                pass
        if self.file_secrets and self._file().exists():
            data = self._read_file()
            data.pop(f"{tenant}/{user}", None)
            self._file().write_text(json.dumps(data), encoding="utf-8")
