"""The API reference (kwartet docs): built without a warning, a page for every public module,
every top-level name, links that land, and modules of a missing extra left out with a note."""

from __future__ import annotations

import functools
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
from kwartet_epistemic.cli import main
from kwartet_epistemic.errors import KwartetError

require_extra("pdoc", "docs")

from kwartet_epistemic.docs import DocsBuild, build_docs, public_modules  # noqa: E402

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: each worker builds its own
    fcntl = None  # type: ignore[assignment]

PACKAGE_DIR = Path(kw.__file__).parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> DocsBuild:
    """The whole reference, built once; strict: any warning pdoc emits is an error.

    Without the View Source buttons: highlighting every function's source is a third of a
    full build's time and is the same for every page (the rest, where warnings come from,
    is built as in ``kwartet docs``).  Under pytest-xdist the workers of one run share the
    build (the first builds it, under a lock; the others read what it wrote).
    """
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None or fcntl is None:
        return build_docs(tmp_path_factory.mktemp("api") / "api", source=False, strict=True)
    shared = tmp_path_factory.getbasetemp().parent / f"api-reference-{run}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "build.json"
        if done.exists():
            data = json.loads(done.read_text())
            skipped = tuple((name, reason) for name, reason in data["skipped"])
            return DocsBuild(Path(data["output"]), tuple(data["modules"]), skipped, ())
        build = build_docs(shared / "api", source=False, strict=True)
        record = {"output": str(build.output), "modules": build.modules, "skipped": build.skipped}
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
            continue  # a folder that is not a package (none today)
        if any(part.startswith("_") for part in parts):
            continue
        if "is deprecated: import" in path.read_text(encoding="utf-8"):
            continue  # an old path kept to forward (kwartet_epistemic.env, .openspiel)
        names.add(".".join(parts))
    return names


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_the_build_has_no_warning(site: DocsBuild) -> None:
    assert site.warnings == ()
    assert site.index.is_file()


def test_every_public_module_has_a_page(site: DocsBuild) -> None:
    skipped = {name for name, _ in site.skipped}
    expected = files_modules()
    assert {
        "kwartet_epistemic.logic",
        "kwartet_epistemic.cli",
        "kwartet_epistemic.interop.environments",
    } <= expected
    assert set(site.modules) | skipped == expected
    for name in site.modules:
        page = site.page(name)
        assert f"<title>{name} API documentation</title>" in page.read_text(encoding="utf-8")
    assert {"kwartet_epistemic.logic", "kwartet_epistemic.cli"} <= set(site.modules)


def test_the_env_module_has_a_page(site: DocsBuild) -> None:
    require_extra("pettingzoo", "rl")
    require_extra("gymnasium", "rl")
    assert "kwartet_epistemic.interop.environments" in site.modules
    assert "KwartetEnv" in text_of(site.page("kwartet_epistemic.interop.environments"))


def test_every_top_level_name_is_on_the_first_page_and_links_to_its_documentation(
    site: DocsBuild,
) -> None:
    root = site.page("kwartet_epistemic")
    source = root.read_text(encoding="utf-8")
    for name in kw.__all__:
        if isinstance(getattr(kw, name), ModuleType):  # kw.viz, kw.agents: their own pages
            assert f'href="kwartet_epistemic/{name}.html"' in source, name
            assert site.page(f"kwartet_epistemic.{name}").is_file(), name
            continue
        row = re.search(rf'<tr id="{re.escape(name)}">\s*<td><a href="([^"]+)">', source)
        if row is None:  # defined in the package itself: documented there in full
            assert f'id="{name}"' in source, name
            continue
        target, _, anchor = row.group(1).partition("#")
        page = (root.parent / target).resolve()
        assert page.is_file(), (name, target)
        if anchor:
            assert f'id="{anchor}"' in page.read_text(encoding="utf-8"), (name, target)


def test_the_first_page_has_the_quick_start_and_every_module(site: DocsBuild) -> None:
    assert 'url=./kwartet_epistemic.html"' in site.index.read_text(encoding="utf-8")
    root = site.page("kwartet_epistemic")
    source, text = root.read_text(encoding="utf-8"), text_of(root)
    readme = (PACKAGE_DIR.parent / "README.md").read_text(encoding="utf-8")
    first_code = re.search(r"```\w*\n(.+?)\n", readme)
    assert first_code is not None
    assert first_code.group(1).strip() in text
    for name in site.modules[1:]:
        assert f'href="{name.replace(".", "/")}.html"' in source, name


def test_links_land_on_a_page_and_an_anchor_that_exist(site: DocsBuild) -> None:
    ids: dict[Path, set[str]] = {}

    def anchors(page: Path) -> set[str]:
        if page not in ids:
            ids[page] = set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))
        return ids[page]

    broken = []
    for page in site.output.rglob("*.html"):
        source = re.sub(r"<script.*?</script>", "", page.read_text(encoding="utf-8"), flags=re.S)
        for href in re.findall(r'<a [^>]*href="([^"]*)"', source):
            if re.match(r"[a-z]+:", href) or href.startswith("data:"):
                continue  # outside the site
            target, _, anchor = href.partition("#")
            landing = (page.parent / target).resolve() if target else page
            if not landing.is_file() or (anchor and anchor not in anchors(landing)):
                broken.append(f"{page.relative_to(site.output)}: {href}")
    assert broken == []


def test_search_finds_each_name_once_where_it_is_documented(site: DocsBuild) -> None:
    index = (site.output / "search.js").read_text(encoding="utf-8")
    entries = re.findall(r'"modulename": *"([^"]+)", *"qualname": *"([^"]*)"', index)
    assert len(entries) > 500  # every module, class, function and attribute of the library
    assert len(set(entries)) == len(entries)
    found = {f"{module}.{qualname}" for module, qualname in entries}
    assert "kwartet_epistemic.epistemics.state.EpistemicState.location_probabilities" in found
    assert "kwartet_epistemic.EpistemicState.location_probabilities" not in found
    ids: dict[str, str] = {}
    for module, qualname in entries:
        if qualname:
            if module not in ids:
                ids[module] = site.page(module).read_text(encoding="utf-8")
            assert f'id="{qualname}"' in ids[module], (module, qualname)


def test_attributes_after_a_call_are_not_turned_into_module_links(site: DocsBuild) -> None:
    """pdoc reads ``.cards`` in ``Deck.piquet().cards`` as the module beside this one."""
    root = site.page("kwartet_epistemic").read_text(encoding="utf-8")
    assert "kw.Deck.piquet()" in text_of(site.page("kwartet_epistemic"))
    for page in site.output.rglob("*.html"):
        source = page.read_text(encoding="utf-8")
        assert not re.search(r"[)\]](</span>)?<a href", source), page
        assert "\u2060" not in source, page
    assert "piquet().cards" in html.unescape(re.sub(r"<[^>]+>", "", root))


def test_a_tilde_reference_shows_the_last_name_linked(site: DocsBuild) -> None:
    """:class:`~kwartet_epistemic.record.GameRecord` reads "GameRecord", as in Sphinx."""
    game = site.page("kwartet_epistemic.game").read_text(encoding="utf-8")
    source = (PACKAGE_DIR / "game.py").read_text(encoding="utf-8")
    assert ":class:`~kwartet_epistemic.record.GameRecord`" in source
    assert '<code><a href="record.html#GameRecord">GameRecord</a></code>' in game
    for page in site.output.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "~kwartet_epistemic" not in text, page
        assert "\u2063" not in text, page


def test_doctest_directives_are_not_shown(site: DocsBuild) -> None:
    cli = site.page("kwartet_epistemic.cli")
    assert '"--no-figures"' in text_of(cli)
    assert "doctest:" not in text_of(cli)


def test_a_literal_block_mark_reads_as_one_colon(site: DocsBuild) -> None:
    source = (PACKAGE_DIR / "logic" / "parser.py").read_text(encoding="utf-8")
    assert "tightest binding::\n" in source
    parser = site.page("kwartet_epistemic.logic.parser").read_text(encoding="utf-8")
    assert "tightest binding:</p>" in parser
    assert "<pre><code>φ &lt;-&gt; ψ" in parser  # the block under it is still code


@pytest.fixture
def toy_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package with a plain module, a private one, one needing a missing dependency, and
    a subpackage whose module needs it too."""
    root = tmp_path / "kwdocs_toy"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text('"""The toy package.\n\n>>> 1\n1\n"""\n')
    (root / "plain.py").write_text(
        '"""Plain."""\n\n\ndef f(x: int) -> int:\n    """Double."""\n    return 2 * x\n'
    )
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


def test_a_module_of_a_missing_dependency_is_left_out_with_a_note(
    toy_package: str, tmp_path: Path
) -> None:
    modules, skipped = public_modules(toy_package)
    assert modules == ["kwdocs_toy", "kwdocs_toy.plain"]
    assert [name for name, _ in skipped] == ["kwdocs_toy.needs", "kwdocs_toy.sub"]
    assert all("kwdocs_no_such_dependency" in reason for _, reason in skipped)
    build = build_docs(tmp_path / "out", package=toy_package, search=False, strict=True)
    assert build.page("kwdocs_toy.plain").is_file()
    assert not build.page("kwdocs_toy.needs").exists()
    assert "kwdocs_toy.needs needs kwdocs_no_such_dependency" in text_of(build.page("kwdocs_toy"))


def test_a_module_that_fails_for_another_reason_is_an_error(
    toy_package: str, tmp_path: Path
) -> None:
    broken = tmp_path / "kwdocs_toy" / "broken.py"
    broken.write_text('"""Broken."""\nfrom kwdocs_toy import no_such_module  # noqa\n')
    with pytest.raises(ImportError, match="no_such_module"):
        public_modules(toy_package)


def test_a_second_build_replaces_the_first_but_other_folders_are_refused(
    toy_package: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    build_docs(out, package=toy_package, search=False)
    (out / "kwdocs_toy" / "stale.html").write_text("old")
    build_docs(out, package=toy_package, search=False)
    assert not (out / "kwdocs_toy" / "stale.html").exists()
    assert (out / "kwdocs_toy" / "plain.html").is_file()

    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(KwartetError, match="expected an empty folder"):
        build_docs(other, package=toy_package)
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_the_command_reports_bad_output_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    assert main(["docs", "--output", str(afile)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"kwartet: error: output {str(afile)!r}: expected a folder, found a file"
    assert afile.read_text() == "x"


def test_the_command_builds_and_says_where(
    toy_package: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import kwartet_epistemic.docs as docs

    monkeypatch.setattr(docs, "build_docs", functools.partial(build_docs, package=toy_package))
    assert docs.main(["--output", str(tmp_path / "site"), "--no-search", "--strict"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"API reference: 2 modules -> {tmp_path / 'site' / 'index.html'}"
    assert "not documented: kwdocs_toy.needs needs kwdocs_no_such_dependency" in out
    assert (tmp_path / "site" / "kwdocs_toy" / "plain.html").is_file()


def test_the_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kwartet docs") and "--output DIR" in out


def test_without_pdoc_the_command_names_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pdoc" else find_spec(name, *a),
    )
    assert main(["docs", "--output", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "kwartet docs: error: the API reference needs pdoc: pip install 'kwartet_epistemic[docs]'"
    )
    assert not (tmp_path / "site").exists()
