"""The documentation site (kwartet docs): built without a warning or a broken link; a page
for every public module and each object documented once; the guide, the notebooks, the
command line and the performance figures in it; bad folders refused and left as they were."""

from __future__ import annotations

import html
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from kwartet_testing import require_extra

import kwartet_epistemic as kw
from kwartet_epistemic.cli import command_help, main

require_extra("sphinx", "docs")
require_extra("myst_nb", "docs")

from kwartet_epistemic.docs import (  # noqa: E402
    DocsBuild,
    DocsError,
    broken_links,
    build_docs,
    public_modules,
    repository_root,
)

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: each worker builds its own
    fcntl = None  # type: ignore[assignment]

PACKAGE_DIR = Path(kw.__file__).parent
ROOT = repository_root()


def _build(output: Path) -> DocsBuild:
    # The notebooks are shown as written: running them is CI's full build (`kwartet docs`)
    # and the notebook tests; everything else is built as `kwartet docs` builds it.
    return build_docs(output, commands=command_help(), execute=False, strict=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> DocsBuild:
    """The whole site, built once per run; strict: any warning or broken link is an error.

    Under pytest-xdist the workers of one run share the build (the first builds it, under
    a lock; the others read what it wrote).
    """
    if ROOT is None:
        pytest.skip("the site is built from a clone of the repository")
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None or fcntl is None:
        return _build(tmp_path_factory.mktemp("site") / "site")
    shared = tmp_path_factory.getbasetemp().parent / f"docs-site-{run}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "build.json"
        if done.exists():
            data = json.loads(done.read_text())
            skipped = tuple((name, reason) for name, reason in data["skipped"])
            return DocsBuild(
                Path(data["output"]), tuple(data["modules"]), skipped,
                tuple(data["notebooks"]), (), (),
            )  # fmt: skip
        build = _build(shared / "site")
        record = {
            "output": str(build.output),
            "modules": build.modules,
            "skipped": build.skipped,
            "notebooks": build.notebooks,
        }
        done.write_text(json.dumps(record))
        return build


def files_modules() -> set[str]:
    """The public modules, read off the package's files (not through the docs module),
    less the old paths that only forward to where a module moved (their source says so)."""
    names = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not (PACKAGE_DIR.parent / Path(*parts[:-1]) / "__init__.py").exists() and len(parts) > 1:
            continue  # a folder that is not a package
        if any(part.startswith("_") for part in parts):
            continue
        if "is deprecated: import" in path.read_text(encoding="utf-8"):
            continue  # an old path kept to forward (kwartet_epistemic.env, .openspiel)
        names.add(".".join(parts))
    return names


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def ids_in(page: Path) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))


def test_the_build_has_no_warning_and_no_broken_link(site: DocsBuild) -> None:
    assert site.warnings == () and site.broken == ()
    assert broken_links(site.output) == []


def test_every_public_module_has_a_page(site: DocsBuild) -> None:
    assert set(site.modules) == files_modules() - {name for name, _ in site.skipped}
    for name in site.modules:
        assert site.page(name).is_file(), name


def test_each_top_level_name_is_documented_once_and_linked_from_the_package_page(
    site: DocsBuild,
) -> None:
    pages = sorted((site.output / "api").glob("*.html"))
    anchors = {page: ids_in(page) for page in pages}
    first = site.page("kwartet_epistemic").read_text(encoding="utf-8")
    for name in kw.__all__:
        obj = getattr(kw, name)
        if isinstance(obj, ModuleType):
            assert f'href="{obj.__name__}.html' in first, name
            continue
        # the one page whose anchor ends in the name and documents it in full
        homes = [
            page
            for page, ids in anchors.items()
            if any(anchor.endswith("." + name) and anchor.startswith("kwartet_epistemic.")
                   and anchor.count(".") >= 1 and page.stem == anchor.rsplit(".", 1)[0]
                   for anchor in ids)
        ]  # fmt: skip
        assert len(homes) == 1, (name, homes)
        assert f'href="{homes[0].name}#' in first, name


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.html").write_text(
        '<a href="sub/b.html">ok</a> <a href="missing.html">no</a> '
        '<a href="https://example.org/x">out</a> <a href="#here">self</a> <p id="here"></p>'
    )
    (tmp_path / "sub" / "b.html").write_text('<img src="../pic.png"> <a href="../a.html#gone">')
    assert broken_links(tmp_path) == [
        "a.html -> missing.html (no such file)",
        "sub/b.html -> ../pic.png (no such file)",
        "sub/b.html -> ../a.html#gone (no anchor gone)",
    ]


def test_the_guide_pages_are_in_the_site(site: DocsBuild) -> None:
    for page in ("index", "concepts", "glossary", "tour", "engines", "teaching",
                 "research", "cli", "performance"):  # fmt: skip
        assert site.page(page).is_file(), page
    glossary = text_of(site.page("glossary"))
    for term in ("world", "view", "announcement", "common knowledge", "distributed knowledge"):
        assert term in glossary.lower(), term


def test_the_six_notebooks_are_pages_and_the_solutions_are_not(site: DocsBuild) -> None:
    assert len(site.notebooks) == 6
    for name in site.notebooks:
        assert site.page(f"notebooks/{name}").is_file(), name
    assert not list(site.output.rglob("*solution*"))


def test_the_command_line_page_has_every_subcommand(site: DocsBuild) -> None:
    page = text_of(site.page("cli"))
    for name, text in command_help().items():
        assert text.splitlines()[0].strip() in page, name


def test_the_performance_page_reads_every_measurement_file(site: DocsBuild) -> None:
    assert ROOT is not None
    page = text_of(site.page("performance"))
    for path in sorted((ROOT / "paper" / "measurements").glob("*.txt")):
        assert f"paper/measurements/{path.name}" in page, path.name
        first = path.read_text(encoding="utf-8").strip().splitlines()[0].strip()
        assert first in page, path.name


@pytest.fixture
def toy_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package with a plain module, a private one, one needing a missing dependency, and
    a subpackage whose module needs it too."""
    root = tmp_path / "kwdocs_toy"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text('"""The toy package."""\n')
    (root / "plain.py").write_text('"""Plain."""\n')
    (root / "_private.py").write_text('"""Private."""\n')
    (root / "needs.py").write_text('"""Needs."""\nimport kwdocs_no_such_dependency  # noqa\n')
    (root / "sub" / "__init__.py").write_text(
        '"""Sub."""\nimport kwdocs_no_such_dependency  # noqa\n'
    )
    (root / "sub" / "inner.py").write_text('"""Inner."""\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "kwdocs_toy"
    for name in [m for m in sys.modules if m.startswith("kwdocs_toy")]:
        del sys.modules[name]


def test_a_module_of_a_missing_dependency_is_left_out_with_a_note(toy_package: str) -> None:
    modules, skipped = public_modules(toy_package)
    assert modules == ["kwdocs_toy", "kwdocs_toy.plain"]
    assert [name for name, _ in skipped] == ["kwdocs_toy.needs", "kwdocs_toy.sub"]
    assert all("kwdocs_no_such_dependency" in reason for _, reason in skipped)


def test_a_module_that_fails_for_another_reason_is_an_error(
    toy_package: str, tmp_path: Path
) -> None:
    broken = tmp_path / "kwdocs_toy" / "broken.py"
    broken.write_text('"""Broken."""\nfrom kwdocs_toy import no_such_module  # noqa\n')
    with pytest.raises(ImportError, match="no_such_module"):
        public_modules(toy_package)


def test_a_folder_of_other_files_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(DocsError, match="expected an empty folder or an earlier site"):
        build_docs(other, execute=False)
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_without_a_clone_the_error_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(DocsError, match="expected a clone of the repository") as caught:
        build_docs(tmp_path / "site", source=tmp_path / "nothing")
    assert isinstance(caught.value, ValueError)
    assert not (tmp_path / "site").exists()


def test_the_command_reports_bad_output_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    assert main(["docs", "--output", str(afile)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"kwartet: error: output {str(afile)!r}: expected a folder, found a file"
    assert afile.read_text() == "x"


def test_the_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kwartet docs") and "--output DIR" in out and "--no-execute" in out
