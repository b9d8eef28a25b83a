"""Files that grow while a run goes on resume after a stop at any byte: a torn tail (a
line, a unit of rows, a gzip member) is cut off and its unit done again, and a save's
temporary file left by a killed writer is removed by the next save."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kwartet_epistemic.files import (
    UnitLog,
    atomic_write_text,
    drop_torn_gzip_member,
    read_csv_rows,
    whole_gzip_members,
)

FIELDS = ["game", "move", "note"]


def unit(game: int, moves: int) -> list[dict[str, object]]:
    return [{"game": game, "move": m, "note": f"g{game}m{m}"} for m in range(moves)]


def test_a_csv_cut_at_every_byte_of_its_last_row_reads_its_whole_rows(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    atomic_write_text(path, "game,move\n1,A\n2,B\n3,CCCC\n")
    whole = path.read_bytes()
    last = whole.rindex(b"3,")
    for cut in range(last, len(whole)):
        path.write_bytes(whole[:cut])
        rows = read_csv_rows(path)
        assert [r["game"] for r in rows] == ["1", "2"], cut
        assert path.read_bytes() == whole[:last]  # cut back to whole rows on disk
        with path.open("a") as handle:  # a resumed run appends after them
            handle.write("3,CCCC\n")
        assert path.read_bytes() == whole


def test_a_unit_log_cut_at_every_byte_of_its_last_unit_or_ledger_line_redoes_that_unit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "moves.csv"
    log = UnitLog(path, FIELDS)
    log.append(unit(0, 3))
    log.append(unit(1, 2))
    before_last = path.stat().st_size
    ledger_before = log.ledger.read_bytes()
    log.append(unit(2, 4))
    whole, whole_ledger = path.read_bytes(), log.ledger.read_bytes()
    cases = [(cut, ledger_before) for cut in range(before_last, len(whole))]
    # the unit written whole but its ledger line cut: still redone
    cases += [
        (len(whole), whole_ledger[:cut]) for cut in range(len(ledger_before), len(whole_ledger))
    ]
    for cut, ledger in cases:
        path.write_bytes(whole[:cut])
        log.ledger.write_bytes(ledger)
        again = UnitLog(path, FIELDS)
        assert sorted({int(r["game"]) for r in again.rows()}) == [0, 1], (cut, ledger)
        again.append(unit(2, 4))
        assert path.read_bytes() == whole and UnitLog(path, FIELDS).rows()[-1]["note"] == "g2m3"


def test_a_unit_log_without_a_ledger_keeps_its_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "old.csv"
    path.write_text("game,move,note\n0,0,a\n0,1,b\n1,0,c")  # written before ledgers, torn
    log = UnitLog(path, FIELDS)
    assert [r["note"] for r in log.rows()] == ["a", "b"]
    log.append(unit(1, 1))
    assert [r["note"] for r in UnitLog(path, FIELDS).rows()] == ["a", "b", "g1m0"]


def members(*texts: str) -> list[bytes]:
    return [gzip.compress(text.encode()) for text in texts]


def test_a_gzip_file_cut_at_every_byte_of_its_last_member_keeps_the_whole_ones(
    tmp_path: Path,
) -> None:
    parts = members("game,move\n0,a\n0,b\n", "1,a\n", "2,a\n2,b\n2,c\n")
    whole = b"".join(parts)
    path = tmp_path / "rows.csv.gz"
    keep = len(parts[0]) + len(parts[1])
    for cut in range(keep, len(whole)):
        path.write_bytes(whole[:cut])
        assert drop_torn_gzip_member(path) == (cut != keep)
        assert path.read_bytes() == whole[:keep]
        with path.open("ab") as handle:  # the resumed run writes the member again
            handle.write(parts[2])
        assert gzip.decompress(path.read_bytes()).decode().count("\n") == 7


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=1, max_size=64), st.integers(min_value=0, max_value=200))
def test_a_damaged_last_member_is_never_read_as_whole(junk: bytes, where: int) -> None:
    good = members("a\n", "b\n")
    data = good[0] + good[1]
    spoiled = bytearray(data)
    spot = len(good[0]) + 10 + where % (len(good[1]) - 10)  # inside the second's data
    spoiled[spot] ^= junk[0] or 1
    kept = whole_gzip_members(bytes(spoiled))
    # a changed bit the decoder never reads (the padding after the last block) leaves the
    # member whole; any other change is caught by its CRC or its structure
    assert kept == len(good[0]) or gzip.decompress(bytes(spoiled)) == b"a\nb\n"
    assert whole_gzip_members(data + junk) == len(data) + whole_gzip_members(junk)


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


@pytest.mark.skipif(sys.platform == "win32", reason="writers are told apart by process id")
def test_the_next_save_removes_temporaries_of_killed_writers_only(tmp_path: Path) -> None:
    target = tmp_path / "figure.png"
    stale = tmp_path / f".figure.png.{dead_pid()}-abcd1234.tmp.png"
    mine = tmp_path / f".figure.png.{os.getpid()}-abcd1234.tmp.png"  # a thread's, maybe
    alive = tmp_path / f".figure.png.{os.getppid()}-abcd1234.tmp.png"
    other = tmp_path / f".other.png.{dead_pid()}-abcd1234.tmp.png"
    for path in (stale, mine, alive, other):
        path.write_bytes(b"half")
    atomic_write_text(target, "new")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(p.name for p in (target, mine, alive, other))


def test_a_save_killed_midway_leaves_a_temporary_the_next_save_removes(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    code = (
        "import os, signal, sys\n"
        "from kwartet_epistemic.files import atomic_path\n"
        "with atomic_path(sys.argv[1]) as t:\n"
        "    t.write_text('half')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(target)], check=False)
    assert len(list(tmp_path.iterdir())) == 1 and not target.exists()  # the temporary
    atomic_write_text(target, "whole")
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]
