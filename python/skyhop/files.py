"""Reading files skyhop did not necessarily write, safely: only what is
expected (a regular file, or for a scenario also a pipe), never more than a
bound, and never blocking on a FIFO or reading a device such as /dev/zero
without end.
"""

from __future__ import annotations

import os
import stat

__all__ = ["MAX_SCENARIO_BYTES", "FileRefused", "read_bounded"]

#: the largest scenario file read (the engine's bound too)
MAX_SCENARIO_BYTES = 64 << 20


class FileRefused(OSError):
    """A file that is not of the expected kind or is too large."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def read_bounded(path: str | os.PathLike[str], limit: int, *, pipe: bool = False) -> bytes:
    """The bytes of ``path``, a regular file (with ``pipe``, also a pipe such
    as ``<(cat scenario.toml)``) of at most ``limit`` bytes. A symbolic link
    is followed only to a regular file. Raises FileRefused (an OSError whose
    ``filename`` is ``path``) for anything else: a FIFO is refused without
    being opened for a blocking read, a device without being read. The one
    reader of files a user names (Rust's is ``skyhop::files``)."""
    name = os.fspath(path)
    st = os.stat(name)
    kind = stat.S_IFMT(st.st_mode)
    if kind not in (stat.S_IFREG, stat.S_IFIFO) or (kind == stat.S_IFIFO and not pipe):
        raise FileRefused(0, f"not a regular file ({_kind_name(kind)})", name)
    # O_NONBLOCK: opening never waits (for a FIFO's writer, or for a file
    # swapped for a FIFO meanwhile); a pipe is then read blocking, and
    # one with no writer reads as empty at once.
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if stat.S_IFMT(os.fstat(fd).st_mode) != kind:
            raise FileRefused(0, "changed while it was opened", name)
        if kind == stat.S_IFIFO:
            os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused(0, f"larger than {limit} bytes, the most read from such a file", name)
    if size == 0 and kind == stat.S_IFIFO:
        raise FileRefused(0, "a FIFO with nothing written to it (no writer)", name)
    return b"".join(chunks)


def _kind_name(kind: int) -> str:
    return {
        stat.S_IFDIR: "a directory",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
        stat.S_IFSOCK: "a socket",
    }.get(kind, "not an ordinary file")
