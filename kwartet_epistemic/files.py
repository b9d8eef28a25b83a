"""Files that survive a stop at any moment: whole replacements and whole appended lines.

Every file the library writes goes through here.  A file written whole (a game record,
a figure, an animation) is written to a temporary file in the same folder, flushed to
disk and then renamed over the target (:func:`atomic_write_bytes`,
:func:`atomic_write_text`, :func:`atomic_path`): a reader sees the old file or the new
one, never half of either, whether the writer is killed, runs out of disk or is
interrupted.  A file that grows line by line (a tournament's CSV) gets each line in one
``write()`` followed by ``fsync`` (:class:`LineAppender`): a stop can leave at most a
torn last line, which :func:`complete_lines` leaves out and :func:`drop_torn_last_line`
cuts off before a resumed run appends to the file again; :func:`read_csv_rows` reads a
CSV file of such lines that way.  A file that grows by gzip members (each a unit of work,
written in one go) may be left with a torn last member, which :func:`drop_torn_gzip_member`
cuts off (the member's CRC and length say whether it is whole).  A temporary file left by
a writer that was killed is removed by the next save of the same target.

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
import csv
import errno
import io
import os
import secrets
import sys
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

__all__ = [
    "LineAppender",
    "UnitLog",
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_text",
    "complete_lines",
    "drop_torn_gzip_member",
    "drop_torn_last_line",
    "fsync_directory",
    "read_csv_rows",
    "whole_gzip_members",
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
        candidate = target.with_name(
            f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp{target.suffix}"
        )
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


# A day: on Windows a writer's process cannot be probed, so only old temporaries go.
_STALE_SECONDS = 86_400


def _writer_gone(pid: int, path: Path) -> bool:
    if pid == os.getpid():
        return False  # this process's own: another thread may be writing it
    if sys.platform == "win32":
        try:
            return time.time() - path.stat().st_mtime > _STALE_SECONDS
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporaries of ``target`` whose writer has ended (killed before it could
    rename or remove its file): their names carry the writer's process id."""
    prefix = f".{target.name}."
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(f".tmp{target.suffix}")):
            continue
        pid_text = name[len(prefix) :].split("-", 1)[0]
        if pid_text.isdigit() and _writer_gone(int(pid_text), Path(entry.path)):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


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
    _remove_stale_temporaries(target)
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


def read_csv_rows(path: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The whole rows of a CSV file that grows a line at a time (a missing file has none).
    A torn last line, left by a run stopped while writing it, is cut off the file first,
    so that a resumed run appends after whole rows; a file holding only a torn header has
    no rows.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
    >>> _ = path.write_text("game,score\\n1,3\\n2,")
    >>> read_csv_rows(path), path.read_text()
    ([{'game': '1', 'score': '3'}], 'game,score\\n1,3\\n')
    """
    target = Path(path)
    if not target.exists():
        return []
    drop_torn_last_line(target)
    with target.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def whole_gzip_members(data: bytes) -> int:
    """How many leading bytes of ``data`` are whole gzip members (each with its CRC and
    length checked); what follows is a torn or damaged member.

    >>> import gzip
    >>> data = gzip.compress(b"a\\n") + gzip.compress(b"b\\n")
    >>> whole_gzip_members(data) == len(data), whole_gzip_members(data[:-1]) < len(data)
    (True, True)
    """
    start = 0
    while start < len(data):
        member = zlib.decompressobj(wbits=31)  # gzip: header, deflate, CRC32 and size
        try:
            member.decompress(data[start:])
        except zlib.error:
            break
        if not member.eof:
            break
        start = len(data) - len(member.unused_data)
    return start


def drop_torn_gzip_member(path: str | os.PathLike[str]) -> bool:
    """Cut a torn or damaged last gzip member off ``path`` (a file that grows a member at
    a time), so that a resumed run redoes that member's unit and appends after the whole
    ones; True if anything was cut.

    >>> import gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv.gz"
    >>> whole = gzip.compress(b"a\\n")
    >>> _ = path.write_bytes(whole + gzip.compress(b"b\\n")[:-3])
    >>> drop_torn_gzip_member(path), path.read_bytes() == whole
    (True, True)
    """
    target = Path(path)
    data = target.read_bytes()
    keep = whole_gzip_members(data)
    if keep == len(data):
        return False
    with target.open("r+b") as handle:
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
    return True


class UnitLog:
    """A CSV file that grows a unit at a time (a unit: the rows of one game, one cell of a
    grid) and survives a stop at any byte, a full disk included.

    Each unit's rows go to the file in one write, flushed to disk; then the file's new size
    is added to a ledger beside it (``NAME.units``, one line per unit).  Opening the log
    cuts the file back to the size of the last unit in the ledger: a unit cut short, a
    torn row, or rows written after the last entry are dropped, and their unit is done
    again by the resumed run.  A file without a ledger (written before there was one)
    keeps its whole lines.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "moves.csv"
    >>> log = UnitLog(path, ["game", "move"])
    >>> log.append([{"game": 1, "move": "A"}, {"game": 1, "move": "B"}])
    >>> with path.open("a") as handle:  # a run stopped inside game 2's rows
    ...     _ = handle.write("2,A\\n2,")
    >>> [row["move"] for row in UnitLog(path, ["game", "move"]).rows()]
    ['A', 'B']
    """

    def __init__(self, path: str | os.PathLike[str], fields: list[str]) -> None:
        self.path = Path(path)
        self.fields = list(fields)
        self.ledger = self.path.with_name(self.path.name + ".units")
        self._recover()

    def _recover(self) -> None:
        if not self.path.exists():
            if self.ledger.exists():  # a ledger without its file: start both afresh
                self.ledger.unlink()
            return
        if not self.ledger.exists():
            drop_torn_last_line(self.path)
            size = self.path.stat().st_size
            atomic_write_text(self.ledger, f"{size}\n" if size else "")
            return
        drop_torn_last_line(self.ledger)
        sizes = self.ledger.read_text(encoding="ascii").split()
        committed = int(sizes[-1]) if sizes else 0
        if self.path.stat().st_size > committed:
            with self.path.open("r+b") as handle:
                handle.truncate(committed)
                handle.flush()
                os.fsync(handle.fileno())

    def rows(self) -> list[dict[str, str]]:
        """The rows of every whole unit, in the order they were appended."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return []
        with self.path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    def append(self, rows: Sequence[Mapping[str, object]]) -> None:
        """Add one unit: its rows (the header first, for the file's first unit)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, self.fields, lineterminator="\n")
        if not self.path.exists() or self.path.stat().st_size == 0:
            writer.writeheader()
        writer.writerows(rows)
        data = buffer.getvalue().encode("utf-8")
        handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _BINARY, 0o666)
        try:
            _write_all(handle, data)
            os.fsync(handle)
            size = os.fstat(handle).st_size
        finally:
            os.close(handle)
        with LineAppender(self.ledger) as ledger:
            ledger.append(f"{size}\n".encode("ascii"))
