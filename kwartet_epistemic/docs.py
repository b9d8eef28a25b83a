"""The API reference: a static HTML site built from the docstrings with pdoc (extra ``docs``).

``kwartet docs`` (or ``python -m kwartet_epistemic.docs``) writes it to ``build/api/``
(``--output DIR`` elsewhere); open ``index.html``.  Every public module of the package is
documented: the modules are found by walking the package, so a new module gets its page
without a change here.  A module whose optional extra is not installed (``env`` needs
``rl``) is left out with a note saying which extra brings it.  The first page is the
package itself: what the library is, the README's quick start, every module with its
summary, and the top-level API (the names of ``kwartet_epistemic.__all__``).

>>> modules, skipped = public_modules()
>>> "kwartet_epistemic.logic" in modules and "kwartet_epistemic.cli" in modules
True
>>> any(name.split(".")[-1].startswith("_") for name in modules)
False
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import linecache
import pkgutil
import posixpath
import re
import shutil
import sys
import types
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from kwartet_epistemic.errors import KwartetError

__all__ = ["DEFAULT_OUTPUT", "DOCFORMAT", "DocsBuild", "build_docs", "main", "public_modules"]

PACKAGE = "kwartet_epistemic"
#: Where ``kwartet docs`` writes the site unless ``--output`` says otherwise.
DEFAULT_OUTPUT = Path("build") / "api"
#: The docstrings are reST-ish (``code``, :class:`roles`, doctest examples); pdoc's
#: ``restructuredtext`` format turns the roles into links, where Markdown would print them.
DOCFORMAT: Final[Literal["restructuredtext"]] = "restructuredtext"
# A file in the output folder that marks it as a reference this module wrote: only such a
# folder (or an empty one) is cleared before a new build.
_MARKER = ".kwartet-api-reference"
# Import names whose distribution is spelled otherwise (to name the extra that brings them).
_DISTRIBUTION_OF = {"pyspiel": "open_spiel"}


@dataclass(frozen=True)
class DocsBuild:
    """What :func:`build_docs` wrote: the folder, the modules documented, the modules left
    out (with the reason) and the warnings pdoc emitted (empty for a clean build)."""

    output: Path
    modules: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]

    @property
    def index(self) -> Path:
        """The first page of the site."""
        return self.output / "index.html"

    def page(self, module: str) -> Path:
        """The page of ``module`` (a dotted name), e.g. ``build.page("kwartet_epistemic.logic")``."""
        return self.output.joinpath(*module.split(".")).with_suffix(".html")

    def summary(self) -> str:
        """One line per fact: where it is, how many modules, what was left out and why."""
        lines = [f"API reference: {len(self.modules)} modules -> {self.index}"]
        lines += [f"  not documented: {reason}" for _, reason in self.skipped]
        lines += [f"  warning: {text}" for text in self.warnings]
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


MOVED_MODULES = frozenset({"kwartet_epistemic.env", "kwartet_epistemic.openspiel"})
"""Old module paths kept only to forward to where the modules moved: not documented."""


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
            module = importlib.import_module(name)
        except ImportError as error:
            missing = _missing_dependency(error, package)
            if missing is None:
                raise
            extra = _extra_of(missing)
            bring = f": pip install '{PACKAGE}[{extra}]'" if extra else ""
            how = f"the {extra!r} extra" if extra else "an optional dependency"
            skipped.append((name, f"{name} needs {missing} ({how}{bring})"))
            continue
        for attribute in getattr(module, "__all__", ()):
            # a name that a module's __getattr__ loads on first use (kw.viz's drawings)
            # is looked up now, so that pdoc, which reads the module's dict, finds it
            getattr(module, attribute, None)
        modules.append(name)
    return modules, skipped


def _readme_top(package: str) -> str:
    """The README's opening (up to its first ``##`` heading): what the library is and the
    quick start.  Empty when the README is not next to the package (a wheel install)."""
    spec = importlib.util.find_spec(package)
    origin = Path(spec.origin) if spec and spec.origin else None
    readme = origin.parent.parent / "README.md" if origin else None
    if readme is None or not readme.is_file():
        return ""
    text = readme.read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):  # the title: the page has its own
        lines = lines[1:]
    top = "\n".join(lines).split("\n## ", 1)[0]
    return top.strip()


def _summary(module: Any) -> str:
    doc = (getattr(module, "__doc__", None) or "").strip()
    first = doc.split("\n\n", 1)[0]
    return " ".join(first.split())


def _landing(package: str, modules: Sequence[str], skipped: Sequence[tuple[str, str]]) -> str:
    """The Markdown shown at the top of the package's page."""
    parts = []
    top = _readme_top(package)
    if top:
        parts.append("## Quick start\n\n" + top)
    rows = ["| module | what it holds |", "|---|---|"]
    for name in modules[1:]:
        href = name.replace(".", "/") + ".html"  # from the package's page, beside its folder
        summary = _plain(_summary(sys.modules[name])).replace("|", "\\|")
        rows.append(f"| [`{name.removeprefix(package + '.')}`]({href}) | {summary} |")
    parts.append("## Modules\n\n" + "\n".join(rows))
    if skipped:
        notes = "\n".join(f"* {reason}" for _, reason in skipped)
        parts.append("Not documented in this build:\n\n" + notes)
    parts.append(
        "## The top-level API\n\n"
        f"`import {package} as kw` gives the names below (`{package}.__all__`), each "
        "linked to its documentation in the module that defines it."
    )
    return "\n\n".join(parts)


# pdoc documents every name a module lists in __all__ in full, so a package that gathers
# its submodules' names (kw itself, kw.logic, kw.agents, ...) would repeat them all.  Here
# a name documented on its own module's page is one row of a table (its kind, its module,
# the first paragraph of its docstring) linking there; only what a module defines itself is
# documented in full on its page.  The package's page also lists every module.
_MODULE_TEMPLATE = """\
{% extends "default/module.html.jinja2" %}
{% block nav_submodules %}
    {% if module.modulename == root_module_name %}
        <h2>Modules</h2>
        <ul>
            {% for name in all_modules if name != root_module_name %}
                <li><a href="{{ name.replace(".", "/") }}.html">{{ name.split(".", 1)[1] }}</a></li>
            {% endfor %}
        </ul>
    {% else %}
        {{ super() }}
    {% endif %}
{% endblock %}
{% block nav_members %}
    {% set ns = namespace(own=[], moved=[]) %}
    {% for m in module.members.values() if is_public(m) | trim %}
        {% if kwartet_moved(module, m, all_modules) %}
            {% set ns.moved = ns.moved + [m] %}
        {% else %}
            {% set ns.own = ns.own + [m] %}
        {% endif %}
    {% endfor %}
    {% if ns.own %}
        <h2>API Documentation</h2>
        {{ nav_members(ns.own) }}
    {% endif %}
    {% if ns.moved %}
        <h2>{{ "The top-level API" if module.modulename == root_module_name else "Gathered here" }}</h2>
        <ul class="memberlist">
            {% for m in ns.moved %}
                <li><a class="{{ m.kind }}" href="{{ kwartet_href(module, m) }}">{{ m.name }}</a></li>
            {% endfor %}
        </ul>
    {% endif %}
{% endblock %}
{% block module_info %}
    {{ super() }}
    {% if module.modulename == root_module_name and kwartet_landing %}
        <section class="kwartet-landing docstring">
            {{ kwartet_landing | to_html | safe }}
        </section>
    {% endif %}
{% endblock %}
{% block module_contents %}
    {% set ns = namespace(moved=[]) %}
    {% for m in module.members.values() if is_public(m) | trim and kwartet_moved(module, m, all_modules) %}
        {% set ns.moved = ns.moved + [m] %}
    {% endfor %}
    {% if ns.moved %}
        <section class="kwartet-gathered docstring">
            {% if module.modulename != root_module_name %}
                <h2 id="gathered-here">Gathered here</h2>
                <p>These names are documented in the modules that define them.</p>
            {% endif %}
            <table>
                <thead><tr><th>name</th><th>kind</th><th>module</th><th>summary</th></tr></thead>
                <tbody>
                {% for m in ns.moved %}
                    <tr id="{{ m.name }}">
                        <td><a href="{{ kwartet_href(module, m) }}"><code>{{ m.name }}</code></a></td>
                        <td>{{ m.kind }}</td>
                        <td>{{ m.taken_from[0].split(".", 1)[1] }}</td>
                        <td>{{ kwartet_summary(m) | to_markdown | to_html | linkify }}</td>
                    </tr>
                {% endfor %}
                </tbody>
            </table>
        </section>
    {% endif %}
    {% for m in module.flattened_own_members if is_public(m) | trim and not kwartet_moved(module, m, all_modules) %}
        <section id="{{ m.qualname or m.name }}">
            {{ member(m) }}
            {% if m.kind == "class" %}
                {% for m in m.own_members if m.kind != "class" and is_public(m) | trim %}
                    <div id="{{ m.qualname }}" class="classattr">
                        {{ member(m) }}
                    </div>
                {% endfor %}
                {% set inherited_members = inherited(m) | trim %}
                {% if inherited_members %}
                    <div class="inherited">
                        <h5>Inherited Members</h5>
                        <dl>
                            {{ inherited_members }}
                        </dl>
                    </div>
                {% endif %}
            {% endif %}
        </section>
    {% endfor %}
{% endblock %}
"""


# pdoc reads ``.name`` as a relative reference (the module ``name`` beside this one), also
# in code: ``kw.Deck.piquet().cards`` showed as ``kw.Deck.piquet()kwartet_epistemic.cards``.
# A dot right after a closing bracket or quote is an attribute, never such a reference: it
# is hidden from pdoc's linking (behind a word joiner) and put back afterwards.
_ATTRIBUTE_DOT = re.compile(r"(?<=[)\]\"'])(\.|</span><span class=\"o\">\.)(?=[A-Za-z_<])")
_HIDDEN_DOT = "\u2060"


# Sphinx shows :class:`~a.b.C` as ``C``; pdoc knows no ``~`` and printed "~a.b.C".  The
# ``~`` is replaced by a mark (an invisible separator) that survives to the linked code,
# whose text is then cut to the last name.
_SHORT_ROLE = re.compile(r"(:py)?(:(?:mod|func|data|const|class|meth|attr|exc|obj):`)~")
_SHORT = "\u2063"
_SHORT_CODE = re.compile(_SHORT + r"<code>(<a [^>]*>)?([\w.]+?)((?:\(\))?)(</a>)?</code>")


def _shortened(match: re.Match[str]) -> str:
    start, name, call, end = match.groups()
    return f"<code>{start or ''}{name.rsplit('.', 1)[-1]}{call}{end or ''}</code>"


def _linkify_attributes_kept(original: Any) -> Any:
    """pdoc's ``linkify`` filter, leaving ``(...).name`` alone and showing ``~a.b.C`` as C."""
    import jinja2
    from markupsafe import Markup

    @jinja2.pass_context
    def linkify(context: Any, code: str, *args: Any, **kwargs: Any) -> Markup:
        hidden = _ATTRIBUTE_DOT.sub(lambda m: m.group(1) + _HIDDEN_DOT, str(code))
        linked = str(original(context, Markup(hidden), *args, **kwargs))
        linked = _SHORT_CODE.sub(_shortened, linked.replace(_HIDDEN_DOT, ""))
        return Markup(linked.replace(_SHORT, ""))

    return linkify


# doctest directives are for the test runner, not the reader
_DOCTEST_DIRECTIVE = re.compile(
    r"[ \t]*#\s*doctest:\s*[+-][A-Z_]+(?:\s*,\s*[+-][A-Z_]+)*[ \t]*$", re.M
)


# reST's "text::" before an indented block reads "text:" (and a lone "::" nothing); the
# block itself is already code in Markdown
_LITERAL_MARK = re.compile(r"(?:(?<=\S)(::)|[ \t]+::|^[ \t]*::)(?=[ \t]*\n[ \t]*\n)", re.M)


def _to_markdown_without_directives(original: Any) -> Any:
    """pdoc's ``to_markdown`` filter, dropping ``# doctest: +ELLIPSIS`` and the like,
    marking the ``~`` of :class:`~a.b.C` (see ``_SHORT_ROLE``) and reading ``text::``."""
    import jinja2

    @jinja2.pass_context
    def to_markdown(context: Any, docstring: str) -> str:
        docstring = _SHORT_ROLE.sub(lambda m: _SHORT + m.group(2), docstring)
        docstring = _LITERAL_MARK.sub(lambda m: ":" if m.group(1) else "", docstring)
        return str(original(context, _DOCTEST_DIRECTIVE.sub("", docstring)))

    return to_markdown


def _plain(text: str) -> str:
    """reST roles as Markdown code, for text that pdoc does not convert (the landing)."""
    text = re.sub(r"(:py)?:\w+:`~([\w.]+)`", lambda m: f"`{m.group(2).rsplit('.', 1)[-1]}`", text)
    return re.sub(r"(:py)?:\w+:`([^`]+)`", r"`\2`", text)


def _moved(module: Any, member: Any, all_modules: Any) -> bool:
    """Whether ``member`` of ``module`` is documented on another module's page."""
    home, qualname = member.taken_from
    if home == module.modulename or home not in all_modules:
        return False
    return all_modules[home].get(qualname) is not None


_ANCHORED_LINK = re.compile(r'href="([^"#]*)#([^"]+)"')
_PRIVATE_LINK = re.compile(r'<a href="([^"#]*)#(_[A-Za-z0-9]\w*)[^"]*">(.*?)</a>')


def _links_to_homes(page: str, current: str, all_modules: Any) -> str:
    """``page`` (of module ``current``) with every link to a name that a module only gathers
    (``kwartet_epistemic.html#Game.ask``) sent to where it is documented (``game.html#...``)."""
    from pdoc.render_helpers import relative_link

    def home(match: re.Match[str]) -> str:
        target, anchor = match.groups()
        module = all_modules.get(module_of(target))
        head, dot, rest = anchor.partition(".")
        member = module.members.get(head) if module is not None else None
        if member is None or not _moved(module, member, all_modules):
            return match.group(0)
        where, qualname = member.taken_from
        return f'href="{relative_link(current, where)}#{qualname}{dot}{rest}"'

    def private(match: re.Match[str]) -> str:
        target, head, text = match.groups()
        module = all_modules.get(module_of(target))
        documented = getattr(module.obj, "__all__", ()) if module is not None else ()
        return match.group(0) if head in documented else text

    def module_of(target: str) -> str:
        if not target:
            return current
        here = posixpath.dirname(current.replace(".", "/"))
        name = posixpath.normpath(posixpath.join(here, target)).removesuffix(".html")
        return name.replace("/", ".")

    # pdoc links a private base class and the members inherited from it (``_Binary.left``
    # of ``And``), which have no documentation: those names are shown unlinked
    page = _PRIVATE_LINK.sub(private, page)
    return _ANCHORED_LINK.sub(home, page)


def _href(module: Any, member: Any) -> str:
    """A link from ``module``'s page to where ``member`` is documented."""
    from pdoc.render_helpers import relative_link

    home, qualname = member.taken_from
    link = relative_link(module.modulename, home)
    return f"{link}#{qualname}" if qualname else link


def _member_summary(member: Any) -> str:
    """The first paragraph of a member's docstring (a constant: its value)."""
    first = (member.docstring or "").strip().split("\n\n", 1)[0]
    if member.kind == "variable" and member.default_value_str:
        first = (first + " " if first else "") + f"`= {member.default_value_str}`"
    return first


def _prepare(output: Path) -> None:
    """Make ``output`` an empty folder, clearing it only if it is an earlier reference."""
    if output.exists() and not output.is_dir():
        raise KwartetError(f"output {str(output)!r}: expected a folder, found a file")
    if output.is_dir() and any(output.iterdir()):
        if not (output / _MARKER).is_file():
            raise KwartetError(
                f"output {str(output)!r}: expected an empty folder or an earlier API reference "
                "(it holds other files; choose another --output)"
            )
        shutil.rmtree(output)
    output.mkdir(parents=True, exist_ok=True)


class _ClassLines(ast.NodeVisitor):
    """The line (0-based, at its first decorator) of every class of a module, by qualname:
    what ``inspect.findsource`` finds for one class, for all of them in one walk."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.lines: dict[str, int] = {}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack += [node.name, "<locals>"]
        self.generic_visit(node)
        del self.stack[-2:]

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        self.lines.setdefault(".".join(self.stack), first - 1)
        self.generic_visit(node)
        self.stack.pop()


@contextlib.contextmanager
def _classes_found_once() -> Iterator[None]:
    """``inspect.findsource`` of a class parses its whole module again (Python 3.11/3.12),
    once per class pdoc documents: about 15% of the build.  Here each module is parsed once
    while the reference is built; anything else goes to the original."""
    original = inspect.findsource
    found: dict[tuple[str, int], dict[str, int]] = {}

    def findsource(obj: Any) -> tuple[list[str], int]:
        file = inspect.getsourcefile(obj) if inspect.isclass(obj) else None
        lines = linecache.getlines(file) if file else []
        if file and lines:
            key = (file, hash("".join(lines)))
            if key not in found:
                finder = _ClassLines()
                finder.visit(ast.parse("".join(lines)))
                found[key] = finder.lines
            line = found[key].get(obj.__qualname__)
            if line is not None:
                return lines, line
        return original(obj)

    inspect.findsource = findsource  # type: ignore[assignment]
    try:
        yield
    finally:
        inspect.findsource = original


def _search_js(all_modules: Any) -> str:
    """pdoc's search index without the names a module only gathers: each name is found
    once, where it is documented (pdoc's own index lists ``EpistemicState`` three times,
    two of them pointing at anchors these pages do not have)."""
    import pdoc.doc
    import pdoc.render
    import pdoc.search

    env = pdoc.render.env
    # as pdoc.render.search_index does: the template's is_public macro, on a blank module
    template = env.get_template("module.html.jinja2")
    context = template.new_context(
        {"module": pdoc.doc.Module(types.ModuleType("")), "all_modules": all_modules}
    )
    for _ in template.root_render_func(context):
        pass

    def shown(doc: Any) -> bool:
        if not str(context["is_public"](doc)).strip():
            return False
        module = all_modules.get(doc.modulename)
        return not (module is not None and doc.qualname and _moved(module, doc, all_modules))

    documents = pdoc.search.make_index(all_modules, shown, DOCFORMAT)
    compile_js = Path(str(env.get_template("build-search-index.js").filename))
    index = pdoc.search.precompile_index(documents, compile_js)
    return env.get_template("search.js.jinja2").render(search_index=index)


@contextlib.contextmanager
def _pdoc_configured(search: bool, source: bool) -> Iterator[Any]:
    """pdoc's renderer set up for this package, restored afterwards."""
    import jinja2
    import pdoc.render

    env = pdoc.render.env
    saved_loader, saved_globals = env.loader, dict(env.globals)
    saved_filters = dict(env.filters)
    try:
        pdoc.render.configure(
            docformat=DOCFORMAT,
            search=search,
            show_source=source,
            math=False,
            footer_text=f"{PACKAGE} {importlib.import_module(PACKAGE).__version__}",  # this library
        )
        env.globals.update(
            kwartet_moved=_moved, kwartet_href=_href, kwartet_summary=_member_summary
        )
        env.filters["linkify"] = _linkify_attributes_kept(saved_filters["linkify"])
        env.filters["to_markdown"] = _to_markdown_without_directives(saved_filters["to_markdown"])
        pdoc_loader = env.loader
        assert pdoc_loader is not None  # configure() just set it
        env.loader = jinja2.ChoiceLoader(
            [jinja2.DictLoader({"module.html.jinja2": _MODULE_TEMPLATE}), pdoc_loader]
        )
        yield pdoc.render
    finally:
        env.loader = saved_loader
        env.filters.clear()
        env.filters.update(saved_filters)
        env.globals.clear()
        env.globals.update(saved_globals)


def build_docs(
    output: str | Path = DEFAULT_OUTPUT,
    *,
    search: bool = True,
    source: bool = True,
    strict: bool = False,
    package: str = PACKAGE,
) -> DocsBuild:
    """Write the API reference of every public module of ``package`` to ``output``.

    ``output`` must be empty, missing, or an earlier reference (which is replaced).  With
    ``search`` the site gets pdoc's search box (its index takes about a second to build),
    with ``source`` every function and class a "View Source" button (highlighting the source
    is about a third of the build's time).
    Warnings pdoc emits are collected in :attr:`DocsBuild.warnings`; with ``strict`` any
    warning raises a :class:`RuntimeError` listing them all, after the site is written.

    >>> import kwartet_epistemic.docs
    >>> build_docs(kwartet_epistemic.docs.__file__)  # a file, not a folder
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: output '...docs.py': expected a folder, found a file
    """
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise KwartetError(f"output {str(out)!r}: expected a folder, found a file")
    import pdoc.doc  # the docs extra; imported here so that the package never needs it

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        modules, skipped = public_modules(package)
        _prepare(out)
        with _pdoc_configured(search, source) as render, _classes_found_once():
            render.env.globals["kwartet_landing"] = _landing(package, modules, skipped)
            documented = {name: pdoc.doc.Module.from_name(name) for name in modules}
            for name, module in documented.items():
                page = out.joinpath(*name.split(".")).with_suffix(".html")
                page.parent.mkdir(parents=True, exist_ok=True)
                text = _links_to_homes(render.html_module(module, documented), name, documented)
                page.write_text(text, encoding="utf-8")
            (out / "index.html").write_text(render.html_index(documented), encoding="utf-8")
            if search:
                (out / "search.js").write_text(_search_js(documented), encoding="utf-8")
        (out / _MARKER).write_text("written by kwartet docs; cleared by the next build\n")
    messages = tuple(
        f"{w.category.__name__}: {w.message} ({Path(w.filename).name}:{w.lineno})" for w in caught
    )
    build = DocsBuild(out, tuple(modules), tuple(skipped), messages)
    if strict and messages:
        raise RuntimeError("the API reference built with warnings:\n" + "\n".join(messages))
    return build


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kwartet_epistemic.docs",
        description="Build the API reference (static HTML, pdoc) of every public module.",
    )
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kwartet docs`` (shared with ``python -m kwartet_epistemic.docs``)."""
    parser.add_argument(
        "--output", default=str(DEFAULT_OUTPUT), metavar="DIR",
        help=f"where to write the site (default {DEFAULT_OUTPUT}; an earlier build there is replaced)",
    )  # fmt: skip
    parser.add_argument("--no-search", action="store_true", help="no search box (faster)")
    parser.add_argument(
        "--no-source", action="store_true", help="no View Source buttons (a third faster)"
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit with status 1 if pdoc emits any warning"
    )


def run(args: argparse.Namespace) -> int:
    """Build as ``args`` (from :func:`add_arguments`) say; print the summary; the exit status."""
    if importlib.util.find_spec("pdoc") is None:
        print(
            f"kwartet docs: error: the API reference needs pdoc: pip install '{PACKAGE}[docs]'",
            file=sys.stderr,
        )
        return 2
    build = build_docs(args.output, search=not args.no_search, source=not args.no_source)
    print(build.summary())
    return 1 if args.strict and build.warnings else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kwartet_epistemic.docs [--output DIR] [--no-search] [--no-source] [--strict]``.

    Returns the exit status: 0 when built, 1 on warnings with ``--strict``, 2 on bad input.
    """
    args = _parser().parse_args(argv)
    try:
        return run(args)
    except KwartetError as error:
        print(f"kwartet docs: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
