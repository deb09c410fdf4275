"""The data dir is private to the user: the folder 0700, every file in it 0600, and the secret.

The data dir holds what the user browsed (pages when collection is on, site models always),
the server's token and the secret that keys the site models' digests (`winnow.keyed`).
`make_private` tightens the folder and every file under it that others could read (an older
Winnow left the database 0644; a file copied or exported there keeps the umask's mode);
`create_private` makes a file 0600 before SQLite opens it, and SQLite gives the `-wal` and
`-shm` files it creates beside a database the database's own mode. `read_or_create` makes a
small secret file once, atomically, with mode 0600.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from winnow.keyed import KEY_BYTES

log = logging.getLogger(__name__)

DIR_MODE = 0o700
"""The data dir and any folder in it: owner only."""
FILE_MODE = 0o600
"""Every file in the data dir: owner read and write only."""
SECRET_FILENAME = "secret"
"""The per-install key of the site models' digests (`KEY_BYTES` random bytes)."""


def make_private(data_dir: Path) -> int:
    """Give `data_dir` mode 0700 and every file and folder under it 0600 / 0700 where
    others (group or world) had any access; return how many modes were tightened. Symbolic
    links are not followed; files owned by another user are left alone (chmod would fail)."""
    tightened = 0
    uid = os.getuid()
    for path in [data_dir, *data_dir.rglob("*")]:
        try:
            info = path.lstat()
        except OSError:
            continue  # removed meanwhile (a WAL file after a checkpoint)
        if stat.S_ISLNK(info.st_mode) or info.st_uid != uid or not info.st_mode & 0o077:
            continue
        wanted = DIR_MODE if stat.S_ISDIR(info.st_mode) else FILE_MODE
        try:
            path.chmod(wanted)
        except OSError as exc:
            log.warning("cannot make %s private: %s", path, exc.strerror or exc)
            continue
        tightened += 1
    if tightened:
        log.info("made %d file(s) in %s private to the user (0600, folders 0700)", tightened,
                 data_dir)
    return tightened


def create_private(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist (an existing file is kept)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def read_or_create(path: Path, make: Callable[[], bytes]) -> bytes:
    """The content of the small private file `path`, created with `make()` (mode 0600,
    exclusively, so two processes starting at once agree on one) when it is missing or
    empty. An existing file that others can read is tightened to 0600 first."""
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            if path.stat().st_mode & 0o077:
                path.chmod(FILE_MODE)
            data = path.read_bytes()
            if data.strip():
                return data
            path.unlink(missing_ok=True)  # an empty file left by a crash: make it again
            continue
        data = make()
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return data
    raise OSError(f"cannot create {path}: it keeps coming back empty")


def load_secret(data_dir: Path) -> bytes:
    """The data dir's secret key, made on first use (`KEY_BYTES` random bytes, 0600).
    Deleting the file makes every saved site model unreadable, and they are relearned."""
    data = read_or_create(data_dir / SECRET_FILENAME, lambda: secrets.token_bytes(KEY_BYTES))
    if len(data) != KEY_BYTES:
        raise ValueError(f"{data_dir / SECRET_FILENAME} is not a Winnow secret "
                         f"({len(data)} bytes, expected {KEY_BYTES}); delete it to make a "
                         "new one (saved site models are then relearned)")
    return data
