"""The documentation site: the course, the guide and the API reference, built by Sphinx.

``kwartet docs`` (extra ``docs``) writes it to ``build/site/`` (``--output DIR`` elsewhere);
open ``index.html``.  The site holds

- the guide pages shipped in the package (``kwartet_epistemic/guide/``: start here, concepts
  with the library's own pictures, glossary, the library in use, engines and their limits,
  teaching with it, research with it);
- the six tutorial notebooks of ``notebooks/``, executed at build time with their figures
  (myst-nb; the teacher's solutions are never part of it);
- the command line, every subcommand's ``--help``;
- the performance page, generated from ``paper/measurements/`` (every figure there has one
  source: the file a benchmark script wrote);
- the API reference of every public module, each object documented once, in the module
  that defines it (autodoc), with the top-level names of ``kwartet_epistemic`` listed.

The build is strict: any warning Sphinx, autodoc, MyST or a notebook emits is an error,
and so is a link inside the site that lands nowhere (a missing page, or an anchor missing
from its page).  The notebooks and the measurements are read from a clone of the
repository (they are not installed with the package).

>>> modules, skipped = public_modules()
>>> "kwartet_epistemic.logic" in modules and "kwartet_epistemic.cli" in modules
True
>>> any(name.split(".")[-1].startswith("_") for name in modules)
False
"""

from __future__ import annotations

import html.parser
import importlib
import importlib.metadata
import importlib.resources
import importlib.util
import inspect
import io
import pkgutil
import posixpath
import re
import shutil
import sys
import types
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import unquote, urlsplit

from kwartet_epistemic.errors import KwartetError

__all__ = [
    "DEFAULT_OUTPUT",
    "DocsBuild",
    "DocsError",
    "broken_links",
    "build_docs",
    "public_modules",
    "repository_root",
]

PACKAGE = "kwartet_epistemic"
#: Where ``kwartet docs`` writes the site unless ``--output`` says otherwise.
DEFAULT_OUTPUT = Path("build") / "site"
#: The tutorial notebooks of the course, in their order (``notebooks/`` of a clone).
NOTEBOOK_GLOB = "[0-9][0-9]_*.ipynb"
# A file in the output folder that marks it as a site this module wrote: only such a folder
# (or an empty one) is cleared before a new build.
_MARKER = ".kwartet-docs-site"
# Import names whose distribution is spelled otherwise (to name the extra that brings them).
_DISTRIBUTION_OF = {"pyspiel": "open_spiel"}
#: Old module paths kept only to forward to where the modules moved: not documented.
MOVED_MODULES = frozenset({"kwartet_epistemic.env", "kwartet_epistemic.openspiel"})


class DocsError(KwartetError):
    """The site cannot be built as asked (a bad output folder, no clone to read the
    notebooks from), or it was built with warnings or broken links (listed in the message)."""


@dataclass(frozen=True)
class DocsBuild:
    """What :func:`build_docs` wrote: the folder, the modules documented, the modules left
    out (with the reason), the notebooks executed, and the warnings and broken links found
    (both empty for a clean build)."""

    output: Path
    modules: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    notebooks: tuple[str, ...]
    warnings: tuple[str, ...]
    broken: tuple[str, ...]

    @property
    def index(self) -> Path:
        """The first page of the site."""
        return self.output / "index.html"

    @property
    def clean(self) -> bool:
        """No warning and no broken link."""
        return not self.warnings and not self.broken

    def page(self, name: str) -> Path:
        """The page of a module (``"kwartet_epistemic.logic"``) or a guide page
        (``"glossary"``, ``"notebooks/01_first_game"``)."""
        if name == PACKAGE or name.startswith(PACKAGE + "."):
            return self.output / "api" / f"{name}.html"
        return self.output / f"{name}.html"

    def summary(self) -> str:
        """One line per fact: where it is, what it holds, what was left out and why."""
        lines = [
            f"site: {len(self.notebooks)} notebooks, {len(self.modules)} modules -> {self.index}"
        ]
        lines += [f"  not documented: {reason}" for _, reason in self.skipped]
        lines += [f"  warning: {text}" for text in self.warnings]
        lines += [f"  broken link: {text}" for text in self.broken]
        return "\n".join(lines)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _extra_of(module: str) -> str | None:
    """The optional extra of this package that installs ``module`` (an import name)."""
    wanted = _canonical(_DISTRIBUTION_OF.get(module, module))
    try:
        requirements = importlib.metadata.requires(PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return None
    extras = []
    for requirement in requirements:
        match = re.match(r"\s*([A-Za-z0-9_.\-]+).*extra\s*==\s*['\"]([^'\"]+)['\"]", requirement)
        if match and _canonical(match.group(1)) == wanted:
            extras.append(match.group(2))
    # the test extra lists everything; name the extra a user would install for this module
    chosen = [extra for extra in extras if extra != "test"] or extras
    return chosen[0] if chosen else None


def _missing_dependency(error: ImportError, package: str) -> str | None:
    """The top-level name of the third-party module whose absence caused ``error``."""
    seen: ImportError | BaseException | None = error
    while seen is not None:
        if isinstance(seen, ModuleNotFoundError) and seen.name:
            root = seen.name.split(".")[0]
            return None if root == package.split(".")[0] else root
        seen = seen.__cause__ or seen.__context__
    return None


def _walk(package: str) -> Iterator[tuple[str, bool]]:
    """Every public module under ``package`` (itself first), as (name, is a package),
    without importing any: names with a part starting with ``_`` are private."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        raise KwartetError(f"package {package!r}: expected an importable package")
    locations = spec.submodule_search_locations
    yield package, locations is not None
    if locations is None:
        return
    for info in sorted(pkgutil.iter_modules(list(locations)), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        if name in MOVED_MODULES:
            continue  # an old path that forwards, with a warning, to where it moved
        if info.ispkg:
            yield from _walk(name)
        else:
            yield name, False


def public_modules(package: str = PACKAGE) -> tuple[list[str], list[tuple[str, str]]]:
    """The public modules of ``package`` that import here, and those that do not for want
    of an optional dependency, each with a note naming it (and the extra that brings it).

    A module that fails to import for any other reason is a bug, and its error is raised.

    >>> modules, skipped = public_modules()
    >>> modules[0], "kwartet_epistemic.viz.kripke" in modules
    ('kwartet_epistemic', True)
    >>> [name for name in modules if ".__" in name or "._" in name]
    []
    """
    modules: list[str] = []
    skipped: list[tuple[str, str]] = []
    for name, _ in _walk(package):
        if any(name.startswith(left + ".") for left, _ in skipped):
            continue  # inside a package left out
        try:
            importlib.import_module(name)
        except ImportError as error:
            missing = _missing_dependency(error, package)
            if missing is None:
                raise
            extra = _extra_of(missing)
            bring = f": pip install '{PACKAGE}[{extra}]'" if extra else ""
            how = f"the {extra!r} extra" if extra else "an optional dependency"
            skipped.append((name, f"{name} needs {missing} ({how}{bring})"))
            continue
        modules.append(name)
    return modules, skipped


def repository_root(start: str | Path | None = None) -> Path | None:
    """The clone the package was installed from (editable), or that holds ``start``: the
    nearest folder with ``pyproject.toml``, ``notebooks/`` and ``paper/measurements/``.
    ``None`` for an installed wheel with no clone beside it.

    >>> root = repository_root()
    >>> root is None or (root / "notebooks").is_dir()
    True
    """
    here = Path(start) if start is not None else Path(__file__).resolve().parent
    for folder in (here, *here.parents):
        if all(
            (folder / part).exists()
            for part in ("pyproject.toml", "notebooks", "paper/measurements")
        ):
            return folder
    return None


# -- the API reference -------------------------------------------------------------------


def _summary(obj: Any) -> str:
    """The first paragraph of the docstring of a module, class or function, on one line,
    its cross-references shown as code ("" for a constant: its docstring is its type's)."""
    if _kind(obj) == "data":
        return ""
    doc = inspect.getdoc(obj) or ""
    return _literal_roles(" ".join(doc.split("\n\n", 1)[0].split()))


def _kind(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj) and (inspect.isfunction(obj) or inspect.isbuiltin(obj)):
        return "function"
    return "data"


def _homes(modules: Iterable[str]) -> dict[tuple[str, str], tuple[str, str]]:
    """Where each exported object is documented in full: (module, name) -> (home module,
    name there).

    A class or function lives in the public module that defines it; one defined in a
    private module in the deepest public module that exports it.  A constant lives in the
    deepest public module that exports the same object under the same name (equal small
    numbers are one object in Python, so identity alone would join unrelated constants).
    """
    exporters: dict[object, list[tuple[str, str]]] = {}
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                continue
            key = id(obj) if _kind(obj) != "data" else (name, id(obj))
            exporters.setdefault(key, []).append((module_name, name))
    public = set(modules)
    homes: dict[tuple[str, str], tuple[str, str]] = {}
    for places in exporters.values():
        module_name, name = places[0]
        obj = getattr(importlib.import_module(module_name), name)
        defined = getattr(obj, "__module__", None) if _kind(obj) != "data" else None
        owners = [place for place in places if place[0] == defined and defined in public]
        home = owners[0] if owners else max(places, key=lambda p: (p[0].count("."), p[0]))
        for place in places:
            homes[place] = home
    return homes


_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]*?)\s*(?:<([^>]*)>)?`")


def _literal_roles(text: str) -> str:
    """``text`` with every cross-reference role shown as code: a summary is read outside
    the page it was written for, where a short name may mean nothing.

    >>> _literal_roles("Run :func:`~kwartet_epistemic.knowledge` or :class:`Game`.")
    'Run ``knowledge`` or ``Game``.'
    """

    def code(match: re.Match[str]) -> str:
        short, shown = match.group(1), match.group(2)
        return f"``{shown.rsplit('.', 1)[-1] if short else shown}``"

    return _ROLE.sub(code, text)


def _rst_title(text: str, underline: str = "=") -> str:
    return f"{text}\n{underline * len(text)}\n"


def _api_page(
    module_name: str, homes: Mapping[tuple[str, str], tuple[str, str]], modules: set[str]
) -> str:
    """The reST of one module's page: its docstring, what it defines (in full), and the
    names it gathers from elsewhere (one linked line each)."""
    module = importlib.import_module(module_name)
    parts = [
        _rst_title(module_name),
        f".. automodule:: {module_name}\n   :no-members:\n",
    ]
    own: dict[str, list[str]] = {"class": [], "exception": [], "function": [], "data": []}
    gathered: list[str] = []
    children: list[str] = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType):
            if obj.__name__ in modules:
                children.append(f"- :py:mod:`{obj.__name__}`: {_summary(obj)}")
            continue
        home, home_name = homes[(module_name, name)]
        if home != module_name:
            summary = _summary(obj)
            line = f"- :py:obj:`{name} <{home}.{home_name}>` ({_kind(obj)})"
            gathered.append(f"{line}: {summary}" if summary else line)
            continue
        own[_kind(obj)].append(name)
    if children:
        parts.append(".. rubric:: Modules\n\n" + "\n".join(children) + "\n")
    headings = {"class": "Classes", "exception": "Errors", "function": "Functions", "data": "Data"}
    for kind, names in own.items():
        if not names:
            continue
        parts.append(f".. rubric:: {headings[kind]}\n")
        for name in names:
            target = f"{module_name}.{name}"
            if kind in ("class", "exception"):
                bases = getattr(module, name).__bases__
                inherit = "   :show-inheritance:\n" if bases != (object,) else ""
                parts.append(f".. autoclass:: {target}\n   :members:\n{inherit}")
            elif kind == "function":
                parts.append(f".. autofunction:: {target}\n")
            else:
                parts.append(f".. autodata:: {target}\n   :no-value:\n")
    if gathered:
        title = "The top-level API" if module_name == PACKAGE else "Gathered here"
        parts.append(
            f".. rubric:: {title}\n\n"
            "Each name is documented in the module that defines it.\n\n"
            + "\n".join(gathered)
            + "\n"
        )
    return "\n".join(parts)


def _api_index(modules: list[str], skipped: list[tuple[str, str]]) -> str:
    rows = [
        _rst_title("API reference"),
        f"Start at :py:mod:`{PACKAGE}`: ``import {PACKAGE} as kw`` gives every name a user "
        "needs, each linked to the module that defines it.  Every public module:\n",
        ".. toctree::\n   :maxdepth: 1\n",
    ]
    rows += [f"   {name}" for name in modules]
    if skipped:
        rows.append("\nNot documented in this build:\n")
        rows += [f"- {reason}" for _, reason in skipped]
    return "\n".join(rows) + "\n"


# -- generated pages ---------------------------------------------------------------------


def _cli_page(commands: Mapping[str, str]) -> str:
    parts = [
        "# The command line\n",
        "`pip install` puts one command on the PATH, `kwartet`; each subcommand below is also "
        "`python -m kwartet_epistemic SUBCOMMAND`.  This page is the help each one prints "
        "(`kwartet SUBCOMMAND --help`).\n",
    ]
    for name, text in commands.items():
        title = "kwartet" if not name else f"kwartet {name}"
        parts.append(f"## `{title}`\n\n```text\n{text.rstrip()}\n```\n")
    return "\n".join(parts)


# The measurement files with a sentence on what each holds, in the order of the page;
# files not named here follow in alphabetical order, so a new file is never left out.
_MEASUREMENT_TITLES = {
    "bench_engine": "Whole games through the public API",
    "bench_knowledge": "Exact knowledge at full size",
    "bench_agents": "Agents",
    "bench_kripke": "Explicit Kripke models",
    "bench_symbolic": "The symbolic engine",
    "bench_smcdel": "Against SMCDEL",
    "bench_draw_pile": "With a draw pile",
    "bench_memory": "Memory",
}


def _performance_page(measurements: Path) -> str:
    parts = [
        "# Performance\n",
        "Every figure on this page is read from the files in `paper/measurements/`, which the "
        "benchmark scripts of `experiments/` write (each file names the command, the machine, "
        "the load at the start, the repeats and the spread).  The paper and this page read the "
        "same files; rerun a script to refresh its file.\n",
    ]
    texts = sorted(measurements.glob("*.txt"))
    order = {stem: i for i, stem in enumerate(_MEASUREMENT_TITLES)}
    texts.sort(key=lambda p: (order.get(p.stem, len(order)), p.stem))
    for path in texts:
        title = _MEASUREMENT_TITLES.get(path.stem, path.stem.replace("_", " "))
        body = path.read_text(encoding="utf-8").rstrip()
        parts.append(f"## {title}\n\n`paper/measurements/{path.name}`:\n\n````text\n{body}\n````\n")
    for path in sorted(measurements.glob("*.md")):
        parts.append(f"```{{include}} measurements/{path.name}\n:heading-offset: 1\n```\n")
    return "\n".join(parts)


def _conf(execute: bool, cache: Path) -> str:
    version = importlib.import_module(PACKAGE).__version__
    mode = "cache" if execute else "off"
    stdlib = "|".join(sorted(name for name in sys.stdlib_module_names if name.isidentifier()))
    return f"""\
# Written by kwartet docs (kwartet_epistemic/docs.py): change it there.
project = "kwartet_epistemic"
release = version = {version!r}
extensions = ["myst_nb", "sphinx.ext.autodoc", "kwartet_epistemic.docs"]
html_theme = "furo"
html_title = "kwartet_epistemic"
html_static_path = ["_static"]
html_css_files = ["site.css"]
copyright = "the kwartet_epistemic developers (MIT licence)"
exclude_patterns = ["_build", "measurements/*.md", "**.ipynb_checkpoints"]
suppress_warnings = []
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3
nb_execution_mode = {mode!r}
nb_execution_cache_path = {str(cache)!r}
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {{"exclude-members": "__init__, __new__"}}
nitpicky = True
# Names of other libraries: linked where Sphinx knows them offline, never a warning.
nitpick_ignore_regex = [
    # the standard library's modules, and the other libraries the signatures name
    (r"py:.*", r"({stdlib}|typing_extensions|numpy|np|npt|matplotlib|networkx|nx|dd|jinja2"
               r"|gymnasium|pettingzoo|pyspiel|IPython|ipywidgets|dask|sympy)(\\..*)?"),
    (r"py:.*", r"(Figure|Axes|Bdd|Function|NDArray|ArrayLike|Generator|Path|PathLike|Callable"
               r"|Iterable|Iterator|Sequence|Mapping|Hashable|Any|Self|TextIO|BinaryIO"
               r"|int|str|float|bool|bytes|object|type|tuple|list|dict|set|frozenset|None"
               r"|complex|slice|range|memoryview|Exception|ValueError|TypeError|KeyError"
               r"|RuntimeError|OSError|LookupError|IndexError|ArithmeticError|Warning"
               r"|UserWarning|DeprecationWarning|RecursionError|MemoryError|BaseException)"),
    (r"py:.*", r".*\\._[A-Za-z]\\w*"),  # private helpers named in a signature (TypeVars)
]
"""


# The package's name is one long word: in furo's sidebar at its usual size it breaks.
_CSS = (
    ".sidebar-brand-text { font-size: 1.25rem; overflow-wrap: normal; }\n"
    "@media (max-width: 30em) { h1 { font-size: 1.9rem; } }\n"
)


def _copy_guide(staging: Path) -> None:
    guide = importlib.resources.files(PACKAGE) / "guide"
    for entry in guide.iterdir():
        if entry.name.endswith(".md"):
            (staging / entry.name).write_text(entry.read_text(encoding="utf-8"), "utf-8")


def _prepare(output: Path) -> None:
    """Make ``output`` an empty folder, clearing it only if it is an earlier site."""
    if output.exists() and not output.is_dir():
        raise DocsError(f"output {str(output)!r}: expected a folder, found a file")
    if output.is_dir() and any(output.iterdir()):
        if not (output / _MARKER).is_file():
            raise DocsError(
                f"output {str(output)!r}: expected an empty folder or an earlier site "
                "(it holds other files; choose another --output)"
            )
        shutil.rmtree(output)
    output.mkdir(parents=True, exist_ok=True)


def build_docs(
    output: str | Path = DEFAULT_OUTPUT,
    *,
    commands: Mapping[str, str] | None = None,
    execute: bool = True,
    source: str | Path | None = None,
    strict: bool = True,
) -> DocsBuild:
    """Build the site into ``output`` and check every link inside it.

    ``commands`` maps each subcommand of ``kwartet`` to its help text (``""`` for the
    command itself): ``kwartet docs`` passes its own.  With ``execute`` the notebooks run
    (myst-nb caches them beside the output, so an unchanged notebook runs once); without,
    they are shown as written (a quick build, for checking the rest).  ``source`` is the
    clone to read the notebooks and measurements from (found from the package otherwise).
    ``output`` must be empty, missing, or an earlier site (which is replaced).  With
    ``strict`` (the default) a warning or a broken link raises :class:`DocsError` listing
    them all, after the site is written.

    >>> import kwartet_epistemic.docs
    >>> build_docs(kwartet_epistemic.docs.__file__)  # a file, not a folder
    Traceback (most recent call last):
    ...
    kwartet_epistemic.docs.DocsError: output '...docs.py': expected a folder, found a file
    """
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise DocsError(f"output {str(out)!r}: expected a folder, found a file")
    root = Path(source) if source is not None else repository_root()
    if root is None or not (root / "notebooks").is_dir():
        where = repr(str(source)) if source is not None else "beside the installed package"
        raise DocsError(
            f"source {where}: expected a clone of the repository (the site reads notebooks/ "
            "and paper/measurements/, which are not installed with the package)"
        )
    notebooks = sorted((root / "notebooks").glob(NOTEBOOK_GLOB))
    try:
        from sphinx.application import Sphinx
    except ImportError as error:
        raise DocsError(
            f"the site needs Sphinx and myst-nb: pip install '{PACKAGE}[docs]' ({error})"
        ) from None
    _prepare(out)
    work = out.parent / f".{out.name}-build"
    staging = work / "source"
    if staging.exists():
        shutil.rmtree(staging)
    (staging / "notebooks").mkdir(parents=True)
    (staging / "api").mkdir()
    (staging / "measurements").mkdir()
    _copy_guide(staging)
    for notebook in notebooks:
        shutil.copy2(notebook, staging / "notebooks" / notebook.name)
    for extra in (root / "notebooks" / "assignment").glob("*.py"):
        (staging / "notebooks" / "assignment").mkdir(exist_ok=True)
        shutil.copy2(extra, staging / "notebooks" / "assignment" / extra.name)
    measurements = root / "paper" / "measurements"
    for path in measurements.glob("*.md"):
        shutil.copy2(path, staging / "measurements" / path.name)
    (staging / "performance.md").write_text(_performance_page(measurements), "utf-8")
    (staging / "cli.md").write_text(_cli_page(commands or {}), "utf-8")
    modules, skipped = public_modules()
    homes = _homes(modules)
    public = set(modules)
    for name in modules:
        (staging / "api" / f"{name}.rst").write_text(_api_page(name, homes, public), "utf-8")
    (staging / "api" / "index.rst").write_text(_api_index(modules, skipped), "utf-8")
    (staging / "conf.py").write_text(_conf(execute, work / "jupyter_cache"), "utf-8")
    (staging / "_static").mkdir()
    (staging / "_static" / "site.css").write_text(_CSS, "utf-8")

    from sphinx.util.console import nocolor

    nocolor()
    status, warning = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        # Sphinx's extensions warn each other of their own coming deprecations (myst and
        # napoleon under Sphinx 9): nothing a reader of the site can act on.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        app = Sphinx(
            str(staging), str(staging), str(out), str(work / "doctrees"), "html",
            status=status, warning=warning, freshenv=True,
        )  # fmt: skip
        app.build()
    (out / _MARKER).write_text("written by kwartet docs; cleared by the next build\n")
    messages = tuple(line for line in warning.getvalue().splitlines() if line.strip())
    build = DocsBuild(
        out,
        tuple(modules),
        tuple(skipped),
        tuple(n.stem for n in notebooks),
        messages,
        tuple(broken_links(out)),
    )
    if strict and not build.clean:
        raise DocsError("the site built with problems:\n" + build.summary())
    return build


# -- the link check ----------------------------------------------------------------------


class _Links(html.parser.HTMLParser):
    """The links (``href``, ``src``) and the anchors (``id``, ``name``) of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value is None:
                continue
            if key in ("href", "src"):
                self.links.append(value)
            elif key in ("id", "name"):
                self.anchors.add(value)


def broken_links(site: str | Path) -> list[str]:
    """Every link between the pages of ``site`` that lands nowhere: a file that is not
    there, or an anchor its page does not have, as ``"page -> link (why)"``.  Links out of
    the site (``https:``, ``mailto:``) are not followed.

    >>> import tempfile
    >>> site = Path(tempfile.mkdtemp())
    >>> _ = (site / "a.html").write_text('<a href="b.html#x">b</a><p id="y"></p>')
    >>> _ = (site / "b.html").write_text('<a href="a.html#y">a</a>')
    >>> broken_links(site)
    ['a.html -> b.html#x (no anchor x)']
    """
    root = Path(site)
    parsed: dict[Path, _Links] = {}

    def page(path: Path) -> _Links:
        if path not in parsed:
            reader = _Links()
            reader.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = reader
        return parsed[path]

    problems = []
    for path in sorted(root.rglob("*.html")):
        for link in page(path).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue  # out of the site
            relative = posixpath.normpath(
                posixpath.join(path.parent.relative_to(root).as_posix(), unquote(parts.path))
            )
            target = (root / relative) if parts.path else path
            if parts.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            name = path.relative_to(root).as_posix()
            if relative.startswith("..") or not target.is_file():
                problems.append(f"{name} -> {link} (no such file)")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in page(target).anchors
            ):
                problems.append(f"{name} -> {link} (no anchor {parts.fragment})")
    return problems


# -- the Sphinx extension ----------------------------------------------------------------
#
# The docstrings name objects the way a reader of the code does: ``kwartet_epistemic.Game``
# (the top-level name), ``Formula`` inside the logic package, ``KripkeModel.holds``.  Each
# object is documented once, in its own module, so such a name is resolved here to the one
# documented object it names: the full name ending in it, the one nearest the page's module
# if there are several.  A name that still matches nothing stays a warning.


def _nearest(candidates: list[str], module: str) -> str | None:
    if len(candidates) == 1:
        return candidates[0]

    def shared(name: str) -> int:
        common = 0
        for a, b in zip(name.split("."), module.split("."), strict=False):
            if a != b:
                break
            common += 1
        return common

    ranked = sorted(candidates, key=lambda name: (-shared(name), name.count("."), name))
    best = ranked[0]
    return (
        best if shared(best) > shared(ranked[1]) or best.count(".") < ranked[1].count(".") else None
    )


def _resolve(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    from sphinx.util.nodes import make_refnode

    target = node.get("reftarget", "")
    objects = env.get_domain("py").objects
    parts = target.split(".")
    module = node.get("py:module") or ""
    for start in range(len(parts)):
        tail = ".".join(parts[start:])
        candidates = [name for name in objects if name == tail or name.endswith("." + tail)]
        candidates = [name for name in candidates if name.startswith(PACKAGE)]
        if candidates:
            chosen = _nearest(candidates, module)
            if chosen is None:
                return None
            entry = objects[chosen]
            return make_refnode(
                app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, chosen
            )
        if start == 0 and not target.startswith(PACKAGE + "."):
            break  # a short name: only its whole self is looked for
    return None


def _docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """A constant's docstring is its ``#:`` comment: the one it would borrow from its type
    (a dict's, an array's) says nothing about it and is dropped.  The "Arguments:" and
    "Attributes:" sections of classes and functions are Google style, read by napoleon's
    parser; a property's or constant's first line is never read as "type: text"."""
    if what in ("data", "attribute", "property"):
        if not inspect.isclass(obj) and lines:
            borrowed = inspect.getdoc(obj) or ""
            if "\n".join(lines).strip() == borrowed.strip():
                lines.clear()
        return
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import GoogleDocstring

    config = Config(napoleon_use_ivar=True, napoleon_use_param=True, napoleon_use_rtype=True)
    parsed = GoogleDocstring(lines, cast(Any, config), app, cast(Any, what), name, obj).lines()
    lines[:] = parsed


def setup(app: Any) -> dict[str, Any]:
    """Sphinx's entry point: ``extensions = ["kwartet_epistemic.docs"]`` resolves the
    docstrings' short and top-level names to the objects' own pages."""
    app.connect("missing-reference", _resolve)
    app.connect("autodoc-process-docstring", _docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
