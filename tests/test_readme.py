"""The README and the guide's pages are tests: the ```python blocks of each run, in order,
as pasted into one fresh interpreter in an empty folder.

The blocks run in a subprocess (cwd an empty temporary folder, matplotlib's Agg backend);
a failure names the block, its first line and the error.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "kwartet_epistemic" / "guide"

# Runs the blocks one by one in one namespace; reports the first failure as JSON.
RUNNER = r"""
import json, sys, time, traceback
blocks = json.loads(sys.stdin.read())
namespace = {"__name__": "__main__"}
for number, code in enumerate(blocks, 1):
    start = time.perf_counter()
    try:
        exec(compile(code, f"<README python block {number}>", "exec"), namespace)
    except BaseException as error:
        print(json.dumps({"block": number, "error": f"{type(error).__name__}: {error}",
                          "traceback": traceback.format_exc()}))
        sys.exit(1)
    print(json.dumps({"block": number, "seconds": time.perf_counter() - start}))
"""


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text, in order.

    >>> python_blocks("a\\n```python\\nx = 1\\n```\\n```bash\\nls\\n```\\n```python\\ny = x\\n```\\n")
    ['x = 1\\n', 'y = x\\n']
    """
    return re.findall(r"^```python[ \t]*\n(.*?)^```[ \t]*$", text, flags=re.S | re.M)


def test_the_readme_has_python_blocks_and_starts_with_the_two_set_up_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(python_blocks(text)) >= 1
    first = re.search(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)
    assert first is not None and text.index(first.group(0)) < text.index("```python")
    assert first.group(1).splitlines() == [
        "pip install -e . && kwartet demo --seed 7",
        'pip install -e ".[test]" && python -m pytest -q',
    ]


def run_blocks(blocks: list[str], where: Path, name: str) -> None:
    """Run ``blocks`` in order in one fresh interpreter in ``where``; fail naming the first
    block that raised."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)  # as a user has it: the installed package only
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(blocks),
        capture_output=True,
        text=True,
        cwd=where,
        env=env,
        timeout=300,
    )
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"block"')]
    failed = [r for r in reports if "error" in r]
    if failed or done.returncode != 0:
        report = failed[0] if failed else {"block": "?", "error": done.stderr[-2000:]}
        number = report["block"]
        first_line = blocks[number - 1].splitlines()[0] if isinstance(number, int) else ""
        pytest.fail(
            f"{name} python block {number} ({first_line!r}) failed: {report['error']}\n"
            f"{report.get('traceback', '')}"
        )
    assert [r["block"] for r in reports] == list(range(1, len(blocks) + 1))


def test_every_python_block_of_the_readme_runs_in_order_in_an_empty_folder(
    tmp_path: Path,
) -> None:
    run_blocks(python_blocks(README.read_text(encoding="utf-8")), tmp_path, "README")
    # What the blocks promise in their comments, checked on the files they leave behind.
    assert (tmp_path / "game.json").is_file()


def test_the_readme_links_land_on_files_of_the_repository() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(local) >= 5
    missing = [link for link in local if not (ROOT / link.split("#")[0]).exists()]
    assert missing == []


GUIDE_PAGES = sorted(
    path.name for path in GUIDE.glob("*.md") if python_blocks(path.read_text(encoding="utf-8"))
)


def test_the_guide_has_pages_with_python_blocks() -> None:
    assert "tour.md" in GUIDE_PAGES


@pytest.mark.parametrize("page", GUIDE_PAGES)
def test_every_python_block_of_a_guide_page_runs_in_order_in_an_empty_folder(
    page: str, tmp_path: Path
) -> None:
    text = (GUIDE / page).read_text(encoding="utf-8")
    run_blocks(python_blocks(text), tmp_path, page)
    if page == "tour.md":
        assert (tmp_path / "game.json").is_file() and (tmp_path / "game.html").is_file()
