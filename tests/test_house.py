"""The house rules, read from the sources (nothing is imported or run).

- No import cycles: the package's import graph, imports inside functions included, has no
  cycle.  Two kinds of edge are left out, each for a stated reason: an import of
  ``kwartet_epistemic.viz`` from inside a function (objects draw themselves in Jupyter,
  and drawing is loaded on first display), and an import inside a function marked
  ``@deprecated`` or a module's ``__getattr__`` (an old spelling that forwards to where a
  name moved, up a floor).
- Public names only: no module, experiment, paper script or test uses another module's
  underscore names (``from m import _x``, ``obj._x`` where ``_x`` is not the module's own)
  or imports a private module of the package from outside it.
- Code is organised by concept: no issue numbers in code, tests or the API face.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "kwartet_epistemic"
# Names other libraries define, not ours: IPython's display hooks, namedtuple's API, and
# the protected members of third-party base classes we subclass (PettingZoo's AECEnv,
# OpenSpiel's MCTSBot), which those libraries document for subclasses.
PROTOCOL = re.compile(
    r"_repr_\w+_|_ipython_\w+_|_asdict|_replace|_fields|_make|_missing_"
    r"|_clear_rewards|_accumulate_rewards|_was_dead_step|_cumulative_rewards"
    r"|_max_simulations"
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _sources(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    exempt: str  # why the edge is left out of the cycle test ("" if it is not)


def _is_deprecated(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in function.decorator_list:
        call = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(call, ast.Name | ast.Attribute) and ast.unparse(call).endswith("deprecated"):
            return True
    return False


class _Imports(ast.NodeVisitor):
    """The imports of one module of the package, each with the function it is in."""

    def __init__(self, module: str, path: Path, modules: dict[str, Path]) -> None:
        self.module, self.path, self.modules = module, path, modules
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.edges: list[Edge] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.append(node)
        self.generic_visit(node)
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for child in node.orelse:  # annotations only: never run
                self.visit(child)
            return
        self.generic_visit(node)

    def _resolve(self, name: str) -> str | None:
        while name and name not in self.modules:
            name = name.rpartition(".")[0]
        return name or None

    def _add(self, name: str, line: int) -> None:
        target = self._resolve(name)
        if target is None or target == self.module or self.module.startswith(target + "."):
            return  # itself, or a package it lives in (always loaded first)
        exempt = ""
        if self.functions:
            if target == f"{PACKAGE}.viz" or target.startswith(f"{PACKAGE}.viz."):
                exempt = "display"
            elif any(_is_deprecated(f) for f in self.functions) or (
                self.functions[0].name == "__getattr__"
            ):
                exempt = "deprecated"
        self.edges.append(Edge(self.module, target, line, exempt))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.startswith(PACKAGE):
                self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.module.split(".")
            if self.path.name != "__init__.py":
                parts.pop()
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        if not base.startswith(PACKAGE):
            return
        for alias in node.names:
            full = f"{base}.{alias.name}"
            self._add(full if full in self.modules else base, node.lineno)


def _import_edges() -> list[Edge]:
    modules = _package_modules()
    edges: list[Edge] = []
    for module, path in modules.items():
        visitor = _Imports(module, path, modules)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        edges += visitor.edges
    return edges


def test_the_package_imports_itself_in_no_cycle_but_display_and_deprecated_forwarders() -> None:
    edges = _import_edges()
    graph = nx.DiGraph()
    for edge in edges:
        if not edge.exempt:
            graph.add_edge(edge.source, edge.target, line=edge.line)
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    described = [
        ", ".join(
            f"{u} -> {v} (line {graph.edges[u, v]['line']})"
            for u, v in graph.subgraph(circle).edges
        )
        for circle in circles
    ]
    assert not circles, "import cycles:\n" + "\n".join(described)
    # The exemptions are what they say: no exempt edge is an import at module level.
    assert {e.exempt for e in edges} <= {"", "display", "deprecated"}


def test_the_cycle_test_sees_imports_inside_functions() -> None:
    # The known upward edges inside functions are found (and exempt), so the test reads
    # function bodies, not only module headers.
    edges = _import_edges()
    lazy = {(e.source, e.target): e.exempt for e in edges if e.exempt}
    assert lazy.get((f"{PACKAGE}.kripke.model", f"{PACKAGE}.symbolic.translations")) == (
        "deprecated"
    )
    assert any(reason == "display" for reason in lazy.values())


def _own_private_names(tree: ast.AST) -> set[str]:
    """The underscore names a module defines itself (functions, classes, variables,
    attributes it assigns, parameters, keyword arguments of its own calls)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _is_module(name: str) -> bool:
    """Whether ``name`` is a module of the package (a source file or a compiled one)."""
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or base.with_suffix(".pyi").is_file()


def _private_uses(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _own_private_names(tree)
    inside = path.is_relative_to(ROOT / PACKAGE)
    where = path.relative_to(ROOT)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            modules = [module] if module else [a.name for a in node.names]
            for name in filter(None, modules):
                if not name.startswith((PACKAGE, "experiments")):
                    continue
                if not inside and any(p.startswith("_") for p in name.split(".")):
                    yield f"{where}:{node.lineno}: imports the private module {name}"
            if isinstance(node, ast.ImportFrom) and (module or "").startswith(
                (PACKAGE, "experiments")
            ):
                for alias in node.names:
                    if not alias.name.startswith("_") or alias.name.startswith("__"):
                        continue
                    if inside and _is_module(f"{module}.{alias.name}"):
                        continue  # a private module of the package, from inside it
                    yield f"{where}:{node.lineno}: imports {module}.{alias.name}"
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in own
            and not PROTOCOL.fullmatch(node.attr)
        ):
            yield f"{where}:{node.lineno}: uses {ast.unparse(node)[:60]}"


@pytest.mark.parametrize("folder", [PACKAGE, "experiments", "paper"])
def test_modules_use_each_others_public_names_only(folder: str) -> None:
    found = [use for path in _sources(folder) for use in _private_uses(path)]
    assert not found, "\n".join(found)


def test_the_private_name_check_finds_a_back_door(tmp_path: Path) -> None:
    script = ROOT / "experiments" / "_probe_for_the_house_test.py"
    try:
        script.write_text(
            "from kwartet_epistemic.epistemics.state import _shared_history\n"
            "import kwartet_epistemic._safejson\n"
            "def f(state):\n    return state._history\n",
            encoding="utf-8",
        )
        found = list(_private_uses(script))
    finally:
        script.unlink()
    assert len(found) == 3, found


def test_no_issue_numbers_in_code_tests_or_the_api_face() -> None:
    pattern = re.compile(r"\b[Ii]ssues? #?\d+\b|\bissue_\d+\b")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}"
        for path in _sources(PACKAGE, "tests", "experiments", "paper")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and path != Path(__file__)
    ]
    assert not found, "\n".join(found)
