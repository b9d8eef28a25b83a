"""Files that survive a stop at any moment: whole replacements and whole appended lines.

Every file the library writes goes through here.  A file written whole (a game record,
a figure, an animation) is written to a temporary file in the same folder, flushed to
disk and then renamed over the target (:func:`atomic_write_bytes`,
:func:`atomic_write_text`, :func:`atomic_path`): a reader sees the old file or the new
one, never half of either, whether the writer is killed, runs out of disk or is
interrupted.  A file that grows line by line (a tournament's CSV) gets each line in one
``write()`` followed by ``fsync`` (:class:`LineAppender`): a stop can leave at most a
torn last line, which :func:`complete_lines` leaves out and :func:`drop_torn_last_line`
cuts off before a resumed run appends to the file again.

>>> import pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
>>> atomic_write_text(target, "old")
>>> with atomic_path(target) as temporary:
...     _ = temporary.write_text("new")
...     target.read_text()  # the target is untouched until the block ends
'old'
>>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
('new', ['note.txt'])
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "LineAppender",
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_text",
    "complete_lines",
    "drop_torn_last_line",
    "fsync_directory",
]

_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation


def fsync_directory(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (a new or renamed file) to disk where the system allows
    it; a no-op where folders cannot be opened (Windows)."""
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:  # some file systems refuse fsync on a folder: nothing to flush there
        pass
    finally:
        os.close(handle)


def _temporary_beside(target: Path) -> Path:
    """A new empty file next to ``target`` (same folder, so a rename replaces it
    atomically) with the same suffix (tools that choose the format by the name, such as
    matplotlib and Pillow, see the target's), created with the usual permissions (or
    the target's, when it exists)."""
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except OSError:
        mode = None  # 0o666 less the umask, as any new file
    for _ in range(100):
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp{target.suffix}")
        try:
            handle = os.open(
                candidate,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY,
                0o666 if mode is None else mode,
            )
        except FileExistsError:
            continue
        os.close(handle)
        if mode is not None:
            with contextlib.suppress(OSError):
                os.chmod(candidate, mode)
        return candidate
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))  # pragma: no cover


def _fsync_file(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY | _BINARY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path to write ``path``'s new content to; when the block ends without
    an error the temporary file is flushed to disk and renamed over ``path``.  On any
    error (including KeyboardInterrupt) the temporary file is removed and ``path`` is
    left as it was.

    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "figure.png"
    >>> with atomic_path(target) as temporary:
    ...     temporary.suffix, temporary.parent == target.parent
    ('.png', True)
    """
    target = Path(path)
    if target.is_symlink():  # replace the file it points to, as writing through it would
        target = target.resolve()
    temporary = _temporary_beside(target)
    try:
        yield temporary
        _fsync_file(temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_directory(target.parent)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` by ``data`` as one step: a reader (or a run stopped at any point)
    sees the old content or the new, never a mixture or half a file."""
    with atomic_path(path) as temporary:
        handle = os.open(temporary, os.O_WRONLY | os.O_TRUNC | _BINARY)
        try:
            _write_all(handle, data)
        finally:
            os.close(handle)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """:func:`atomic_write_bytes` of ``text`` encoded (UTF-8 by default, newlines as
    given)."""
    atomic_write_bytes(path, text.encode(encoding))


def _write_all(handle: int, data: bytes) -> None:
    """``data`` to the file descriptor: one ``write()``, repeated only for the rest of a
    short write (a full disk then raises on the next call)."""
    view = memoryview(data)
    while view:
        written = os.write(handle, view)
        view = view[written:]


class LineAppender:
    """Appends whole lines to a file: each line is given to the system in one
    ``write()`` and flushed to disk (``fsync``) before :meth:`append` returns, so a stop
    loses at most the line being written, and leaves it torn (without its line end)
    rather than mixed with another.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
    >>> with LineAppender(path) as out:
    ...     out.append(b"a,b\\r\\n")
    ...     out.append(b"1,2\\r\\n")
    >>> path.read_bytes()
    b'a,b\\r\\n1,2\\r\\n'
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        existed = self.path.exists()
        self._handle: int | None = os.open(
            self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _BINARY, 0o666
        )
        if not existed:
            fsync_directory(self.path.parent)

    def append(self, line: bytes) -> None:
        """Write one line (ending in a line end) and flush it to disk."""
        if self._handle is None:
            raise ValueError(f"{self.path}: the appender is closed")
        if not line.endswith(b"\n"):
            raise ValueError("a line must end with a line end")
        _write_all(self._handle, line)
        os.fsync(self._handle)

    def close(self) -> None:
        """Close the file (every line is on disk already)."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            os.close(handle)

    def __enter__(self) -> LineAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def complete_lines(data: bytes) -> bytes:
    """``data`` without a torn last line (one missing its line end).

    >>> complete_lines(b"a\\nb\\nhalf a li"), complete_lines(b"a\\n"), complete_lines(b"torn")
    (b'a\\nb\\n', b'a\\n', b'')
    """
    if data.endswith(b"\n"):
        return data
    return data[: data.rfind(b"\n") + 1]


def drop_torn_last_line(path: str | os.PathLike[str]) -> bool:
    """Cut a torn last line (left by a stop in the middle of writing it) off ``path``
    before more lines are appended; True if there was one."""
    target = Path(path)
    size = target.stat().st_size
    if size == 0:
        return False
    with target.open("r+b") as handle:
        # Read back from the end only as far as the last line end.
        block = 1 << 16
        end = size
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return False
        keep = 0
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                keep = start + cut + 1
                break
            end = start
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
    return True
