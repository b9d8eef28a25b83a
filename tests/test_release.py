"""The package as a release: the source distribution holds what a packager needs (and no
test that cannot run without the clone), a wheel builds from it alone, and both carry the
licence, the metadata (classifiers, URLs) and every data file the library reads."""

from __future__ import annotations

import email.parser
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import kwartet_epistemic as kw

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def built(hook: str, source: Path, out: Path) -> Path:
    """What setuptools' PEP 517 ``hook`` (``build_sdist``, ``build_wheel``) builds from
    ``source`` into ``out``, in a process of its own."""
    code = f"import sys; from setuptools import build_meta as b; print(b.{hook}(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)], cwd=source, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("build_sdist", ROOT, tmp_path_factory.mktemp("sdist"))


@pytest.fixture(scope="module")
def wheel(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from the unpacked sdist alone (no file of the clone beside it)."""
    where = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as archive:
        archive.extractall(where, filter="data")
    (source,) = where.iterdir()
    return built("build_wheel", source, tmp_path_factory.mktemp("wheel"))


def package_files() -> set[str]:
    """The files of the package that a user's install needs (sources and data)."""
    wanted = set()
    for path in (ROOT / "kwartet_epistemic").rglob("*"):
        if path.is_file() and path.suffix in {".py", ".pyi", ".c", ".h", ".json", ".toml", ".md"}:
            wanted.add(path.relative_to(ROOT).as_posix())
    wanted.add("kwartet_epistemic/py.typed")
    return {name for name in wanted if "__pycache__" not in name}


def test_the_sdist_holds_the_package_the_release_files_and_no_partial_tests(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for name in ("LICENSE", "README.md", "CITATION.cff", "CHANGELOG.md", "CONTRIBUTING.md",
                 "pyproject.toml", "setup.py"):  # fmt: skip
        assert name in names, name
    assert package_files() <= names, sorted(package_files() - names)
    assert not any(name.startswith(("tests/", "notebooks/", "build/", "paper/")) for name in names)
    assert not any(name.endswith((".so", ".pyd", ".pyc")) for name in names)


def test_a_wheel_builds_from_the_sdist_with_the_licence_metadata_and_data(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"kwartet_epistemic-{kw.__version__}.dist-info"
        licence = archive.read(f"{info}/licenses/LICENSE").decode()
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
    assert licence == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    wanted = {n for n in package_files() if not n.endswith((".c", ".h"))}
    assert wanted <= names, sorted(wanted - names)
    assert any(re.match(r"kwartet_epistemic/_counting_kernel\..*(so|pyd)$", n) for n in names)
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Version"] == kw.__version__
    classifiers = metadata.get_all("Classifier")
    assert classifiers == PROJECT["classifiers"]
    assert not any(c.startswith("License ::") for c in classifiers)  # the expression says it
    assert "Typing :: Typed" in classifiers
    urls = dict(line.split(", ", 1) for line in metadata.get_all("Project-URL"))
    assert urls == PROJECT["urls"] and {"Source", "Documentation"} <= set(urls)


def test_the_citation_the_changelog_and_the_package_agree() -> None:
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    fields = dict(re.findall(r"^([a-z-]+): \"?([^\"\n]*)\"?$", citation, flags=re.M))
    assert fields["cff-version"] == "1.2.0"
    assert fields["version"] == kw.__version__ == PROJECT["version"]
    assert fields["license"] == PROJECT["license"] == "MIT"
    assert fields["repository-code"] == PROJECT["urls"]["Source"]
    assert fields["url"] == PROJECT["urls"]["Documentation"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{kw.__version__}]" in changelog and "## [Unreleased]" in changelog
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for command in ("python -m pytest -q", "kwartet docs", "mypy kwartet_epistemic"):
        assert command in contributing
