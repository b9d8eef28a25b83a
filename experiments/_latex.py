"""The paper's numbers as files: every experiment writes its figures for ``paper/paper.tex``
here, so that no number in the paper is typed by hand.

An experiment with an output folder writes, besides its CSV and figures,

- ``<name>_numbers.tex``: one macro per number (``\\kwLadderTopShare`` ...), read by the
  paper with ``\\input``; the file's first lines say which script, commit, machine and load
  produced it;
- ``<name>_table.tex`` (optional): a ``tabular`` body (booktabs rules) the paper wraps in
  a ``table`` environment.

Macro names are letters only (TeX control words cannot hold digits), each starting with
``kw`` and the experiment's own prefix, so two experiments cannot define the same macro
(``\\newcommand`` would stop the build if they did).

>>> macro_name("kw", "ladder", "top", "share")
'kwLadderTopShare'
>>> macro_name("kw", "exact", "after30")
Traceback (most recent call last):
...
ValueError: macro part 'after30': expected letters only (TeX macro names hold no digits)
>>> fmt(0.28712, 3), fmt(1234567, 0), fmt(2.5e-05, 2)
('0.287', '1{,}234{,}567', '2.5\\\\cdot10^{-5}')
>>> interval(0.257, 0.318)
'[0.257, 0.318]'
>>> escape("50% of a_b & c#")
'50\\\\% of a\\\\_b \\\\& c\\\\#'
"""

from __future__ import annotations

import functools
import math
import os
import platform
import re
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kwartet_epistemic.files import atomic_write_text

_LETTERS = re.compile(r"[A-Za-z]+")


def macro_name(*parts: str) -> str:
    """``kw`` + the parts capitalised and joined: a valid, letters-only TeX macro name."""
    for part in parts:
        if not _LETTERS.fullmatch(part):
            raise ValueError(
                f"macro part {part!r}: expected letters only (TeX macro names hold no digits)"
            )
    first, *rest = parts
    return first + "".join(p[:1].upper() + p[1:] for p in rest)


def fmt(value: float | int, digits: int = 3) -> str:
    """``value`` for TeX math or text: fixed ``digits`` after the point, thousands grouped
    with ``{,}`` for integers, powers of ten for very small or very large magnitudes."""
    if isinstance(value, bool):
        raise ValueError(f"value {value!r}: expected a number, not a truth value")
    if isinstance(value, int) or (digits == 0 and float(value).is_integer()):
        number = int(value)
        if abs(number) >= 10**15:
            return _power(float(number), 2)
        return f"{number:,}".replace(",", "{,}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"value {value!r}: expected a finite number")
    if x != 0 and (abs(x) < 10 ** (-digits) or abs(x) >= 1e15):
        return _power(x, digits)
    text = f"{x:,.{digits}f}"
    return text.replace(",", "{,}")


def sig(value: float, digits: int = 2) -> str:
    """A measured time or rate for TeX: ``digits`` significant digits (the precision a
    median over a few runs on one machine carries), thousands grouped with ``{,}``.

    >>> [sig(x) for x in (3013.4, 328.6, 0.5764, 20.416, 0.0211, 0.0, 9.96)]
    ['3{,}000', '330', '0.58', '20', '0.021', '0', '10']
    """
    x = float(value)
    if isinstance(value, bool) or not math.isfinite(x) or digits < 1:
        raise ValueError(
            f"value {value!r}, digits {digits!r}: expected a finite number, digits >= 1"
        )
    if x == 0:
        return "0"
    rounded = float(f"{x:.{digits - 1}e}")
    places = max(digits - 1 - math.floor(math.log10(abs(rounded))), 0)
    return fmt(int(rounded) if places == 0 else rounded, places)


def _power(x: float, digits: int) -> str:
    mantissa, exponent = f"{x:.{max(digits - 1, 0)}e}".split("e")
    return f"{mantissa}\\cdot10^{{{int(exponent)}}}"


def interval(low: float, high: float, digits: int = 3) -> str:
    """A 95% interval as the paper prints it: ``[low, high]``."""
    return f"[{fmt(low, digits)}, {fmt(high, digits)}]"


def escape(text: str) -> str:
    """``text`` with TeX's special characters escaped, for table cells and captions."""
    out = []
    for ch in str(text):
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        elif ch == "\\":
            out.append("\\textbackslash{}")
        else:
            out.append(ch)
    return "".join(out)


@functools.cache
def source_state() -> tuple[str, bool]:
    """The commit the run started from and whether the tree had uncommitted changes
    then: read once per process, so that a script's own earlier outputs (tracked files
    it rewrites) do not mark its later ones as made from a changed tree."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return commit, bool(git("status", "--porcelain", "--untracked-files=no"))


def provenance(script: str) -> list[str]:
    """Comment lines naming the script, the commit (and whether the tree was dirty when
    the run started: :func:`source_state`), the machine and the load average at writing
    time."""
    commit, changed = source_state()
    dirty = " (uncommitted changes)" if changed else ""
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    return [
        f"% generated by {script}; do not edit (rerun the script instead)",
        f"% commit {commit}{dirty}; {time.strftime('%Y-%m-%d %H:%M %Z')}",
        f"% machine {platform.machine()}, {os.cpu_count()} cores, python "
        f"{platform.python_version()}; load average {load}",
    ]


def _write(path: Path, lines: Iterable[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "\n".join(lines) + "\n")


def write_numbers(path: str | Path, script: str, numbers: Mapping[str, str]) -> Path:
    """Write ``numbers`` (macro name -> TeX text) to ``path`` as ``\\newcommand`` lines,
    whole (a temporary file, then a rename), after the provenance comments."""
    lines = provenance(script)
    for name, text in numbers.items():
        if not re.fullmatch(r"kw[A-Z][A-Za-z]*", name):
            raise ValueError(f"macro name {name!r}: expected 'kw' then letters, e.g. kwLadderTop")
        lines.append(f"\\newcommand{{\\{name}}}{{{text}}}")
    target = Path(path)
    _write(target, lines)
    return target


def write_table(
    path: str | Path,
    script: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    align: str | None = None,
) -> Path:
    """Write a booktabs ``tabular`` (``align``: one letter per column, default ``l`` then
    ``r``) with ``header`` and ``rows``; cells are TeX already (use :func:`escape` on
    plain text).  A row of one cell spans the table (a heading for the rows below it)."""
    columns = len(header)
    if any(len(row) not in (1, columns) for row in rows):
        raise ValueError(f"table rows: expected {columns} cells in every row, or 1 (a heading)")
    spec = align or "l" + "r" * (columns - 1)
    lines = provenance(script)
    lines += [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(header) + " \\\\",
              "\\midrule"]  # fmt: skip
    lines += [
        (" & ".join(row) if len(row) == columns else f"\\multicolumn{{{columns}}}{{l}}{{{row[0]}}}")
        + " \\\\"
        for row in rows
    ]
    lines += ["\\bottomrule", "\\end{tabular}"]
    target = Path(path)
    _write(target, lines)
    return target


# The paper's figures are drawn at the size they are printed (LNCS: a 12.2 cm text
# block, 17.5 cm of it on a page turned sideways), so that a font size given here is the
# size on the page; the paper includes each at its natural width.
TEXT_WIDTH_IN = 4.8
SIDEWAYS_WIDTH_IN = 7.4
FONT_PT = 8.0


def paper_style() -> Any:
    """A Matplotlib ``rc_context`` for figures printed at their natural size: every text
    at :data:`FONT_PT` points (titles one point more), thin lines, a tight layout.

    >>> with paper_style():
    ...     import matplotlib
    ...     matplotlib.rcParams["legend.fontsize"]
    8.0
    """
    import matplotlib

    size = FONT_PT
    return matplotlib.rc_context({
        "font.size": size, "axes.titlesize": size + 1, "axes.labelsize": size,
        "xtick.labelsize": size, "ytick.labelsize": size, "legend.fontsize": size,
        "legend.title_fontsize": size, "figure.titlesize": size + 1,
        "lines.linewidth": 1.2, "axes.linewidth": 0.6, "xtick.major.width": 0.6,
        "ytick.major.width": 0.6, "lines.markersize": 4, "legend.frameon": False,
        "savefig.bbox": "standard", "figure.constrained_layout.use": True,
        "pdf.fonttype": 42,
    })  # fmt: skip
