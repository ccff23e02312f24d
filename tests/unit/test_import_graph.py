"""The import graph of app/ and audit/ (docs/architecture.md, "Layers"): no cycles between
modules, and no module imports one in a higher layer. Every import statement counts: at the
top of a module, inside a function, and under TYPE_CHECKING (a type is a dependency too).

LAYERS is the one declaration of the order; docs/architecture.md explains it. A new top-level
module or package gets its place there. KNOWN lists the edges still breaking the rules, each
with who removes it: shrink it, never grow it."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Lowest first. A module may import modules of its own layer or of a lower one. An entry names
# a package (and so every module in it) or a top-level module.
LAYERS: tuple[tuple[str, ...], ...] = (
    # the record: models, store, chain, spool; and the studies' tables, which the chain covers
    # (audit.coverage digests verdicts and preferences), so they sit with the record
    ("audit", "app.studies.tables"),
    ("app.domain", "app.i18n", "app.yamldata"),  # shared types, bilingual text, YAML reading
    ("app.serving",),  # the embedded model server, self-contained (Settings derive from it)
    ("app.config",),  # the one Settings
    ("app.database", "app.accounts"),  # unit of work, spool, checkpoints, verify; who acts
    ("app.validation",),  # pure checks of a text against the statute texts
    ("app.route", "app.llm", "app.export"),  # the transfer route and facts check, client, DOCX
    ("app.prompts",),  # document types and rendering
    # outline drafting parts, the filing reports' templates and sources; operator tools
    ("app.outline", "app.filing", "app.ops"),
    ("app.knowledge",),  # the installation's types, catalogue and clauses, loaded once
    ("app.context",),  # the acting context: settings, knowledge, database, actor, handed down
    ("app.drafting", "app.matters"),  # the draft: prepare, run, check, record, revise; matters
    ("app.review",),  # documents others wrote: read, checked on their date, compared, annotated
    (
        "app.precedents",
        "app.studies",
    ),  # approving precedents; blind review studies, built on drafts
    ("app.commands", "app.pages"),  # the command line's and the browser's faces
    ("app.cli", "app.main", "app.web"),  # entry points
)
PACKAGE_ROOT = "app"  # app/__init__.py holds only the version; it imports nothing

# (importer, imported): edges allowed for now.
KNOWN: dict[tuple[str, str], str] = {}


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of app/ and audit/."""
    found: dict[str, Path] = {}
    for top in ("app", "audit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(module: str, path: Path, known: Mapping[str, Path]) -> Iterator[str]:
    """The modules of `known` that `module` imports anywhere in its file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _longest_known(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from ..pkg import y
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"  # from pkg import submodule
                yield submodule if submodule in known else from_known(base, known)


def from_known(name: str, known: Mapping[str, Path]) -> str:
    return next(iter(_longest_known(name, known)), "")


def _longest_known(name: str, known: Mapping[str, Path]) -> Iterator[str]:
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in known:
            yield ".".join(parts[:end])
            return


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {
        module: {target for target in imported(module, path, files) if target not in ("", module)}
        for module, path in files.items()
    }


def layer_of(module: str) -> int | None:
    """The index of the module's layer (the longest declared name that contains it)."""
    best: tuple[int, int] | None = None
    for index, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (
                best is None or len(name) > best[1]
            ):
                best = (index, len(name))
    return None if best is None else best[0]


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def upward(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import from a lower layer to a higher one, as "importer (layer) -> imported (layer)"."""
    lines = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = layer_of(module), layer_of(target)
            if here is not None and there is not None and there > here:
                lines.append(f"{module} ({here}) -> {target} ({there})")
    return lines


def without_known(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    return {m: {t for t in targets if (m, t) not in KNOWN} for m, targets in graph.items()}


def test_every_module_has_a_layer() -> None:
    undeclared = sorted(m for m in import_graph() if m != PACKAGE_ROOT and layer_of(m) is None)
    assert undeclared == [], f"give these a place in LAYERS: {undeclared}"


def test_no_import_cycles() -> None:
    assert cycles(without_known(import_graph())) == []


def test_no_upward_imports() -> None:
    assert upward(without_known(import_graph())) == []


def test_known_exceptions_still_exist() -> None:
    """An exception that is gone leaves the list (it must not come back unnoticed)."""
    graph = import_graph()
    gone = [edge for edge in KNOWN if edge[1] not in graph.get(edge[0], set())]
    assert gone == [], f"no longer imported, drop from KNOWN: {gone}"


def test_the_graph_sees_every_kind_of_import() -> None:
    """The reader itself: top-level, in a function, under TYPE_CHECKING, relative, and
    `from package import submodule` all count; a name from a package points at the package."""
    graph = import_graph()
    assert "app.domain" in graph["app.config"]  # top level
    assert "audit.store" in graph["app.llm.router"]  # inside a function
    assert "app.serving.drafters" in graph["app.serving.drafter_registry"]  # TYPE_CHECKING
    assert "app.export.labels" in graph["app.export.cited"]  # from app.export import labels
    assert "app.database" in graph["app.database.verify"]  # from app.database import spool_status
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("app.pages.draft") > layer_of("app.drafting.service")  # type: ignore[operator]
