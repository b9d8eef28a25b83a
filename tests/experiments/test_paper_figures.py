"""The paper's figures are drawn at the size they are printed and every text in them is
8 points or more: the paper includes each at its natural size, no wider than the text
block (or than a page turned sideways, for a sideways figure), and the font sizes the
PDF sets (its ``Tf`` operators) are all 8 or more."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "paper"
TEXT_WIDTH_PT = 347.12  # LNCS: 12.2 cm
SIDEWAYS_WIDTH_PT = 547.0  # LNCS text height, 19.3 cm
SMALLEST_PT = 8.0
INCLUDE = re.compile(
    r"\\begin\{(sideways)?figure\}.*?\\includegraphics(\[[^]]*\])?\{\\measurements/([^}]+)\}", re.S
)


def _included() -> list[tuple[str, str, bool, str]]:
    """(source, figure file, sideways, options) for every figure the paper includes."""
    found = []
    for source in [PAPER / "paper.tex", *sorted((PAPER / "sections").glob("*.tex"))]:
        for match in INCLUDE.finditer(source.read_text()):
            found.append((source.name, match.group(3), bool(match.group(1)), match.group(2) or ""))
    return found


def font_sizes(pdf: Path) -> tuple[float, list[float]]:
    """A PDF's page width (points) and every font size its content streams set."""
    data = pdf.read_bytes()
    box = re.search(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert box, f"{pdf.name}: no MediaBox"
    sizes = []
    for stream in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            text = zlib.decompress(stream.group(1))
        except zlib.error:
            text = stream.group(1)
        sizes += [float(x) for x in re.findall(rb"/F\w*\s+([\d.]+)\s+Tf", text)]
    return float(box.group(3)) - float(box.group(1)), sizes


def test_the_paper_includes_figures() -> None:
    assert len(_included()) >= 10


@pytest.mark.parametrize(("source", "name", "sideways", "options"), _included())
def test_figures_print_at_their_own_size_with_8_point_text(
    source: str, name: str, sideways: bool, options: str
) -> None:
    assert options == "", f"{source}: {name} is scaled ({options}): draw it at its printed size"
    width, sizes = font_sizes(PAPER / "measurements" / name)
    assert width <= (SIDEWAYS_WIDTH_PT if sideways else TEXT_WIDTH_PT) + 0.5, (name, width)
    assert sizes, f"{name}: no text found"
    assert min(sizes) >= SMALLEST_PT, (name, sorted(set(sizes))[:4])


def test_the_check_reads_font_sizes(tmp_path: Path) -> None:
    """A figure with a 6-point text is caught."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1))
    fig.text(0.1, 0.5, "small", fontsize=6)
    fig.text(0.1, 0.2, "large", fontsize=9)
    fig.savefig(tmp_path / "f.pdf")
    plt.close(fig)
    width, sizes = font_sizes(tmp_path / "f.pdf")
    assert width == pytest.approx(144) and sorted(set(sizes)) == [6.0, 9.0]
