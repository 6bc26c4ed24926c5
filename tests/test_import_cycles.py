"""No import circles among wrdscore's modules.

The graph is read from the source with :mod:`ast`, not from a running interpreter, so
imports that only some code paths reach count too: every ``import`` and ``from ...
import`` anywhere in a module (at the top, or inside a function or method) is an edge,
with relative imports resolved against the module's package.

Imports under ``if TYPE_CHECKING:`` are *not* edges: they never run, so they cannot
form a circle at import time, and annotations are the one place where a lower layer
may name a type of a higher one without depending on it.

How an import becomes edges (what Python runs for it):

- ``import a.b.c`` / ``from a.b.c import name``: the module ``a.b.c`` and each package
  on the way (``a``, ``a.b``), except the importer's own enclosing packages, which are
  already being imported when the importer runs;
- ``from a.b import name`` where ``a.b.name`` is a module: that module (and the
  packages on the way, as above); where ``name`` is not a module: ``a.b`` itself, even
  when it encloses the importer (reading a name from a package that is still
  initialising is exactly the circle that breaks).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import wrdscore

PACKAGE_ROOT = Path(wrdscore.__file__).parent


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name (packages by their own)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, type_checking: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree``; those under ``if TYPE_CHECKING:`` only if asked."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and not type_checking and _is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def _existing(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is one of ``modules``."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def _with_parents(target: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """``target`` and the packages above it, less those enclosing ``importer``."""
    parts = target.split(".")
    found = {target}
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        if parent in modules and not importer.startswith(parent + "."):
            found.add(parent)
    return found


def import_edges(modules: dict[str, Path], type_checking: bool = False) -> dict[str, set[str]]:
    """For each module, the modules of the package that importing it runs (see the top).

    With ``type_checking`` the imports under ``if TYPE_CHECKING:`` are edges too.
    """
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        package = name if is_package else name.rpartition(".")[0]
        out: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _imports(tree, type_checking):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _existing(alias.name, modules)
                    if target is not None:
                        out |= _with_parents(target, name, modules)
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in modules:
                    out |= _with_parents(submodule, name, modules)
                    continue
                target = _existing(source, modules)
                if target is not None:
                    out |= _with_parents(target, name, modules) | {target}
        out.discard(name)
        edges[name] = out
    return edges


def import_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle (``[a, b, ..., a]``) per strongly connected group of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        # Tarjan's algorithm; the package has ~100 modules, far below the recursion limit.
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [_circle_in(group, edges) for group in groups]


def _circle_in(group: set[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest circle through the alphabetically first module of ``group``."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt_frontier = []
        for node in frontier:
            for nxt in sorted(edges[node] & group):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    nxt_frontier.append(nxt)
        frontier = nxt_frontier
    raise AssertionError(f"no circle in strongly connected {group}")  # pragma: no cover


def test_wrdscore_has_no_import_circles() -> None:
    modules = module_names(PACKAGE_ROOT)
    assert "wrdscore.metrics.base" in modules and "wrdscore.embeddings" in modules
    edges = import_edges(modules)
    circles = import_circles(edges)
    assert not circles, "import circles:\n" + "\n".join(
        f"{' -> '.join(c)}  (and every module that both reaches and is reached from "
        f"{c[0]}: {', '.join(sorted(_reach(c[0], edges) & _reached_from(c[0], edges)))})"
        for c in circles
    )


#: The layers, lowest first: data flows corpora -> embeddings -> metrics -> human_eval,
#: and the CLI only parses and calls. Shared helpers are below all of them. The score
#: command's input/output formats (inputs) sit just above corpora: a --code line's
#: language makes a corpora.SourceCode, and the per-pair rows show what
#: corpora.clean_prediction made of a reply. The rating-free signals, which judge
#: scorers, sit beside the studies, and so do the hints about misuse the commands print.
#: The Hugging Face evaluate module (data/evaluate) is a front end, like the CLI.
LAYERS = (
    {"wrdscore", "_lazy", "errors", "atomic", "progress", "significance"},
    {"corpora"},
    {"inputs", "corpus_inputs"},
    {"embeddings"},
    {"metrics"},
    {"explain", "hints", "human_eval", "signals"},
    {"cli", "__main__", "data"},
)


def _layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else module
    (rank,) = (i for i, names in enumerate(LAYERS) if top in names)
    return rank


def test_no_module_imports_a_higher_layer_even_for_types() -> None:
    # TYPE_CHECKING imports count here: an annotation naming a higher layer's type is
    # still a dependency on it (inputs.py once named metrics' ScoreResult, a circle
    # inputs -> metrics.base -> metrics._engine -> inputs for a type checker).
    edges = import_edges(module_names(PACKAGE_ROOT), type_checking=True)
    upward = sorted(
        f"{a} -> {b}" for a, targets in edges.items() for b in targets if _layer(b) > _layer(a)
    )
    assert upward == []


def _reach(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in edges[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def _reached_from(start: str, edges: dict[str, set[str]]) -> set[str]:
    reverse: dict[str, set[str]] = {name: set() for name in edges}
    for name, targets in edges.items():
        for target in targets:
            reverse[target].add(name)
    return _reach(start, reverse)


def _package(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        path = root / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return module_names(root / "pkg")


def test_a_function_level_circle_is_found_and_named(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import f\n",
            "b.py": """\
                def f():
                    from . import a  # relative, and inside a function
                    return a
                """,
            "c.py": "import pkg.a\n",
        },
    )
    assert import_circles(import_edges(modules)) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_type_checking_imports_are_not_edges(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import f\n",
            "b.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from pkg.a import A
                else:
                    from pkg import c
                def f(x: "A") -> None: ...
                """,
            "c.py": "",
        },
    )
    edges = import_edges(modules)
    assert edges["pkg.b"] == {"pkg.c"}
    assert import_circles(edges) == []


def test_names_read_from_a_package_initialising_are_edges(tmp_path: Path) -> None:
    # pkg/__init__ imports sub.x, which reads a name from pkg/__init__: a real circle.
    # Importing a sibling *module* through the package (from pkg.sub import y) is not.
    modules = _package(
        tmp_path,
        {
            "__init__.py": "from pkg.sub.x import X\nVERSION = '1'\n",
            "sub/__init__.py": "",
            "sub/x.py": "from pkg.sub import y\nfrom ..sub.y import Y\nX = 1\n",
            "sub/y.py": "from pkg import VERSION\nY = 2\n",
        },
    )
    edges = import_edges(modules)
    assert edges["pkg.sub.x"] == {"pkg.sub.y"}
    assert import_circles(edges) == [["pkg", "pkg.sub.x", "pkg.sub.y", "pkg"]]


def test_subpackages_depend_one_way() -> None:
    # A subpackage (embeddings' training, specialise, store) is a room: circles between
    # rooms, even through different modules, mean the rooms are cut in the wrong place.
    modules = module_names(PACKAGE_ROOT)
    # The top package is no room: its modules (errors, atomic, ...) are each their own.
    rooms = {name for name, path in modules.items() if path.name == "__init__.py"}
    rooms -= {PACKAGE_ROOT.name}

    def room(module: str) -> str:
        found = [r for r in rooms if module == r or module.startswith(r + ".")]
        return max(found, key=len) if found else module

    collapsed: dict[str, set[str]] = {room(m): set() for m in modules}
    for name, targets in import_edges(modules, type_checking=True).items():
        # A package's __init__ re-exporting its rooms is not a room depending on them.
        if name not in rooms:
            collapsed[room(name)] |= {room(t) for t in targets} - {room(name)}
    assert "wrdscore.embeddings.training" in rooms
    assert import_circles(collapsed) == []


def test_packages_reach_each_other_through_public_names() -> None:
    # Reading code lives in corpora and scoring against it in metrics "through public
    # interfaces"; the same holds between every two packages (corpora, embeddings,
    # metrics, human_eval, cli): each is reached through what its __init__ exports, so
    # its private modules can be cut freely.
    packages = [p for p in PACKAGE_ROOT.iterdir() if (p / "__init__.py").is_file()]
    found = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        home = next((p for p in packages if p in path.parents), None)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                parts = name.split(".")
                if parts[0] != "wrdscore" or len(parts) < 3:
                    continue
                if home is not None and parts[1] == home.name:
                    continue
                if any(part.startswith("_") for part in parts[2:]):
                    found.append(f"{path.relative_to(PACKAGE_ROOT)}: {name}")
    assert found == []
