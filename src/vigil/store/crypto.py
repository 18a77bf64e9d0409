"""Secrets encrypted at rest (contract §6, seed §5.2).

Client secrets must be shown again in the console, so they are encrypted rather than
hashed; signing keys are encrypted the same way. We use Fernet (AES-128-CBC +
HMAC-SHA256, authenticated) from ``cryptography``. The key comes from configuration
(``VIGIL_SECRET_KEY``, a urlsafe-base64 32-byte Fernet key; several keys separated by
commas decrypt with any and encrypt with the first, for key rotation) or from a key file
created on first start with mode 0600 (``VIGIL_SECRET_KEY_FILE``, default
``{data_dir}/secret.key``). A key file that its group or other users can read is refused
with a message naming the fix.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet


class SecretBoxError(Exception):
    """A stored secret could not be decrypted (wrong key or corrupted data)."""


class SecretBox:
    """Encrypt and decrypt short secrets.

    Parameters
    ----------
    keys : sequence of bytes
        Fernet keys; the first encrypts, any decrypts.
    """

    def __init__(self, keys: list[bytes]) -> None:
        if not keys:
            raise ValueError("at least one key is required")
        self._fernet = MultiFernet([Fernet(k) for k in keys])

    def __repr__(self) -> str:
        return "SecretBox(<keys hidden>)"

    @classmethod
    def from_config(cls, secret_key: str | None, key_file: Path) -> SecretBox:
        """Use ``secret_key`` when given, else the key file (created if missing)."""
        if secret_key:
            return cls([k.strip().encode("ascii") for k in secret_key.split(",") if k.strip()])
        return cls([load_or_create_key_file(key_file)])

    def encrypt(self, plaintext: str) -> bytes:
        return self._fernet.encrypt(plaintext.encode("utf-8"))

    def decrypt(self, token: bytes) -> str:
        try:
            return self._fernet.decrypt(token).decode("utf-8")
        except InvalidToken:
            raise SecretBoxError("cannot decrypt a stored secret: wrong secret key?") from None

    def encrypt_bytes(self, plaintext: bytes) -> bytes:
        return self._fernet.encrypt(plaintext)

    def decrypt_bytes(self, token: bytes) -> bytes:
        try:
            return self._fernet.decrypt(token)
        except InvalidToken:
            raise SecretBoxError("cannot decrypt a stored secret: wrong secret key?") from None


def load_or_create_key_file(path: Path) -> bytes:
    """Read the Fernet key at ``path``, creating it (mode 0600) when it does not exist.

    Creation uses ``O_CREAT | O_EXCL`` so two processes starting together cannot
    overwrite each other's key; the loser reads the winner's.
    """
    path = Path(path)
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_key(path)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key + b"\n")
    return key


class KeyFilePermissionError(SecretBoxError):
    """The key file can be read by other users: refuse to start."""


def check_private_file(path: Path) -> None:
    """Refuse a key file that its group or other users can read or write.

    Raises
    ------
    KeyFilePermissionError
        The message names the file, its mode and the fix.
    """
    mode = path.stat().st_mode & 0o777
    if os.name == "posix" and mode & 0o077:
        raise KeyFilePermissionError(
            f"secret key file {path} has mode {mode:04o}: other users can read the key that "
            f"encrypts every client secret and signing key. Run `chmod 600 {path}` "
            "(and check who has read it), then start again."
        )


def _read_key(path: Path) -> bytes:
    check_private_file(path)
    key = path.read_bytes().strip()
    if not key:
        raise SecretBoxError(f"secret key file {path} is empty")
    return key
