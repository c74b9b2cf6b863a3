"""Small dialogs: new space (encrypted by default) and unlock."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from biny.console.i18n import tr


class NewSpaceDialog(QDialog):
    """Name, encryption (on unless unticked on purpose) and, if needed, a passphrase."""

    def __init__(self, need_passphrase: bool, secret_source: str, parent: QWidget | None = None, *,
                 can_remember: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("New space"))
        self.name = QLineEdit()
        self.encrypt = QCheckBox(tr("Encrypt chunk text at rest (recommended)"))
        self.encrypt.setChecked(True)
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat = QLineEdit()
        self.repeat.setEchoMode(QLineEdit.EchoMode.Password)
        self.remember = _remember_box(can_remember)
        form = QFormLayout(self)
        form.addRow(tr("Name"), self.name)
        form.addRow(self.encrypt)
        self.need_passphrase = need_passphrase
        if need_passphrase:
            form.addRow(tr("Passphrase"), self.passphrase)
            form.addRow(tr("Repeat"), self.repeat)
            form.addRow(self.remember)
        else:
            form.addRow(QLabel(tr("Passphrase from: {source}").format(source=secret_source)))
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c92a2a")
        form.addRow(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _check(self) -> None:
        if not self.name.text().strip():
            self.error.setText(tr("Give the space a name."))
        elif self.encrypt.isChecked() and self.need_passphrase and not self.passphrase.text():
            self.error.setText(tr("Choose a passphrase (or untick encryption for non-confidential content)."))
        elif self.encrypt.isChecked() and self.need_passphrase and self.passphrase.text() != self.repeat.text():
            self.error.setText(tr("The two passphrases differ."))
        else:
            self.accept()


def _remember_box(can_remember: bool) -> QCheckBox:
    """Ticked only where a passphrase can be kept; on a machine without a keyring it says so."""
    box = QCheckBox(tr("Remember in the OS keyring"))
    box.setChecked(can_remember)
    box.setEnabled(can_remember)
    if not can_remember:
        box.setToolTip(tr("This machine has no OS keyring. Set BINY_PASSPHRASE, or opt in to a 0600 file with "
                          "security.file_secrets = true in config.toml."))
    return box


class UnlockDialog(QDialog):
    def __init__(self, space: str, parent: QWidget | None = None, *, can_remember: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Unlock {space}").format(space=space))
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.remember = _remember_box(can_remember)
        self.remember.setChecked(False)  # unlocking is for this session unless asked
        form = QFormLayout(self)
        form.addRow(QLabel(tr("“{space}” is encrypted. Enter its passphrase.").format(space=space)))
        form.addRow(tr("Passphrase"), self.passphrase)
        form.addRow(self.remember)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
