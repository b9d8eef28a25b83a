#!/usr/bin/env bash
# Build paper/paper.pdf (LNCS, llncs.cls) from paper.tex with latexmk, and the software
# paper paper/paper_joss.pdf from paper.md with pandoc.
#
#   paper/build.sh            # install TeX when latexmk is missing, then build
#   paper/build.sh --clean    # remove the build products (latexmk -C)
#
# When latexmk is missing, installs Debian's texlive packages with apt-get (sudo only when
# not root). The numbers, tables and figures the paper \inputs are in paper/measurements/,
# written by the experiment scripts (python -m experiments --full); this script does not
# rerun them.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(latexmk texlive-latex-recommended texlive-fonts-recommended texlive-publishers lmodern pandoc
          poppler-utils)

if ! command -v latexmk >/dev/null 2>&1 || ! command -v pdflatex >/dev/null 2>&1 \
    || ! kpsewhich llncs.cls >/dev/null 2>&1 || ! kpsewhich lmodern.sty >/dev/null 2>&1 \
    || ! command -v pandoc >/dev/null 2>&1; then
    echo "build.sh: latexmk or pdflatex missing; installing ${PACKAGES[*]}" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
        "${PACKAGES[@]}"
fi

if [ "${1:-}" = "--clean" ]; then
    latexmk -C paper.tex
    rm -f paper_joss.pdf
    exit 0
fi

latexmk -pdf -interaction=nonstopmode -halt-on-error paper.tex
# latexmk stops on errors; any warning (references, citations, floats, boxes, packages)
# is listed here and fails the build, so that one that "works" but is broken is noticed.
if grep -E "LaTeX Warning|Package .* Warning|There were undefined|Overfull|Underfull" paper.log; then
    echo "build.sh: warnings above (LaTeX or package warnings, overfull or underfull boxes)" >&2
    exit 1
fi
echo "build.sh: paper/paper.pdf built ($(pdfinfo paper.pdf 2>/dev/null | awk '/^Pages/ {print $2}') pages)"

# The software paper (JOSS style: paper.md with the same references.bib), rendered with
# pandoc's default LaTeX template; any warning (an unresolved citation) fails the build.
pandoc paper.md --citeproc --fail-if-warnings -M author="The kwartet_epistemic authors" \
    -V geometry:margin=2.5cm -o paper_joss.pdf
echo "build.sh: paper/paper_joss.pdf built ($(pdfinfo paper_joss.pdf 2>/dev/null | awk '/^Pages/ {print $2}') pages)"
