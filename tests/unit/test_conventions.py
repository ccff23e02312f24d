"""The project's "one way for each thing" rules (docs/architecture.md, "Conventions"), checked
where a machine can check them. Each allow-list names what is left to convert: shrink it, never
grow it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.domain import FINDING_CODES
from app.serving.drafter_registry import DRAFTERS
from app.validation.messages import MESSAGES

ROOT = Path(__file__).resolve().parents[2]
APP, AUDIT, DOCS = ROOT / "app", ROOT / "audit", ROOT / "docs"
HAN = re.compile(r"[\u4e00-\u9fff]")
# one literal holding both languages: 中文 / English
PAIR = re.compile(r"[\u4e00-\u9fff][^\n]*\s/\s[^\n]*[A-Za-z]")

# Modules still printing "中文 / English" literals (the CLI prints both languages; the server's
# API errors carry both on the wire; the DOCX labels are bilingual on the page). New code puts
# fixed text in app/locales/*.yaml and service messages in Bilingual / BilingualError.
PAIR_LITERALS_LEFT = {
    "app/export/labels.py",
    "app/main.py",
    "app/ops/bench_report.py",
}
# Pages whose helpers still take `Any` where a domain type exists.
PAGES_WITH_ANY: set[str] = set()
# Codes declared for checks built on other branches; their MESSAGES rows come with them.
CODES_AWAITING_MESSAGES: set[str] = set()


def sources(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py"))


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant in a module except docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_pages_hold_no_user_text_of_their_own() -> None:
    """UI strings come from app/locales via tr(); a page holds no Chinese text at all."""
    found = [
        f"{rel(p)}:{line} {text!r}"
        for p in sources(APP / "pages")
        for line, text in literals(p)
        if HAN.search(text)
    ]
    assert found == []


def test_no_new_bilingual_pair_literals() -> None:
    found = {rel(p) for p in sources(APP, AUDIT) for _, text in literals(p) if PAIR.search(text)}
    assert found <= PAIR_LITERALS_LEFT, (
        f"new '中文 / English' literals in {found - PAIR_LITERALS_LEFT}"
    )
    assert found >= PAIR_LITERALS_LEFT, (
        f"converted, drop from the list: {PAIR_LITERALS_LEFT - found}"
    )


def test_locale_files_have_no_duplicate_keys() -> None:
    """A key written twice in one YAML mapping silently loses the first (yaml keeps the last)."""
    import yaml

    duplicates: list[str] = []

    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[object, object]:
        keys = [loader.construct_object(k) for k, _ in node.value]
        duplicates.extend(f"line {node.start_mark.line}: {k}" for k in keys if keys.count(k) > 1)
        return yaml.SafeLoader.construct_mapping(loader, node)

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    for path in sorted((APP / "locales").glob("*.yaml")):
        yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)  # a SafeLoader
    assert duplicates == []


def test_no_language_ternaries() -> None:
    """Choosing a language is Bilingual.text(lang)'s job (audit/domain.py), nobody else's."""
    pattern = re.compile(r"""lang(?:uage)?\(?\)?\s*[!=]=\s*["'](?:en|zh)["']""")
    found = [
        f"{rel(p)}:{n}"
        for p in sources(APP, AUDIT)
        if rel(p) != "audit/domain.py"
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_pages_read_messages_through_bilingual() -> None:
    """Pages show a service's message with describe(exc) / .bilingual, not its halves."""
    found = [
        rel(p)
        for p in sources(APP / "pages")
        if re.search(r"message_(?:zh|en)\b", p.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_pages_use_domain_types_not_any() -> None:
    found = {
        rel(p)
        for p in sources(APP / "pages")
        if re.search(r"\bAny\b", p.read_text(encoding="utf-8"))
    }
    assert found <= PAGES_WITH_ANY, f"new Any in {found - PAGES_WITH_ANY}"


def test_every_finding_code_has_messages_and_a_documented_row() -> None:
    table = (DOCS / "validation.md").read_text(encoding="utf-8")
    undocumented = [c for c in FINDING_CODES if f"| `{c}` |" not in table]
    assert undocumented == []
    missing = set(FINDING_CODES) - set(MESSAGES) - CODES_AWAITING_MESSAGES
    assert missing == set()
    for code, (_, zh, en) in MESSAGES.items():
        assert HAN.search(zh) and not HAN.search(en), code


def test_every_drafter_is_documented() -> None:
    docs = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert all(f"`{mode}`" in docs for mode in DRAFTERS)


def test_serving_holds_only_the_server() -> None:
    """Operator tools live in app/ops/ and may use the server's modules, not the reverse."""
    found = [
        rel(p)
        for p in sources(APP / "serving")
        if re.search(r"^\s*(from|import) app\.ops\b", p.read_text(encoding="utf-8"), re.M)
    ]
    assert found == []


# Functions about a user rather than acting for one: role predicates, the sign-in sessions.
USER_IS_THE_SUBJECT = {
    "app/accounts/__init__.py:has_role",
    "app/accounts/__init__.py:require_role",
    "app/accounts/__init__.py:can_see_all_history",
    "app/accounts/__init__.py:remember",
    "app/accounts/sessions.py:issue",
    "app/accounts/sessions.py:created_of",
    "app/accounts/sessions.py:recheck",
    "app/accounts/sessions.py:end_everywhere",
}


def test_services_take_the_acting_user_as_actor_keyword() -> None:
    """A public service in app/ that takes a `User` takes it as `actor`, keyword-only (the
    audit layer takes the name as `actor: str`); pages and commands are the callers."""
    found = []
    for p in sources(APP):
        if p.parent.name in ("pages", "commands") or p.name == "main.py":
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            if f"{rel(p)}:{node.name}" in USER_IS_THE_SUBJECT:
                continue
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs:
                kind = ast.unparse(arg.annotation).strip("'\"") if arg.annotation else ""
                if re.fullmatch(r"User( \| None)?", kind) and (
                    arg.arg != "actor" or arg not in a.kwonlyargs
                ):
                    found.append(f"{rel(p)}:{node.name}({arg.arg})")
    assert found == []


def test_user_errors_are_bilingual_errors() -> None:
    """An exception class with a zh/en message pair derives from BilingualError."""
    found = []
    for p in sources(APP, AUDIT):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef) or node.name == "BilingualError":
                continue
            bases = {ast.unparse(b) for b in node.bases}
            if not any(b.endswith(("Error", "Exception")) for b in bases):
                continue
            if "message_zh" in ast.unparse(node) and not bases & {"BilingualError"}:
                found.append(f"{rel(p)}:{node.name}")
    assert found == []


def test_every_cli_string_is_in_the_locale_files() -> None:
    """A cli_text key missing from app/locales shows as the key itself: no help may."""
    import argparse

    from app.cli import build_parser

    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser) -> None:
        texts = [parser.description or ""] + [a.help or "" for a in parser._actions]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                texts += [c.help or "" for c in action._choices_actions]
                for child in action.choices.values():
                    walk(child)
        missing.extend(text for text in texts if text.startswith("cli."))

    walk(build_parser())
    assert missing == []


def shown_without_describe(path: Path) -> list[str]:
    """Where a caught exception (`except ... as exc`) is shown other than through
    `describe(exc)`: `str(exc)`, `f"{exc}"`, `detail=exc`, `exc.message(lang)`. Building a new
    error from it (`raise ... from exc`) is not showing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for handler in ast.walk(tree):
        if not isinstance(handler, ast.ExceptHandler) or handler.name is None:
            continue
        for stmt in handler.body:
            raised = {
                id(n) for r in ast.walk(stmt) if isinstance(r, ast.Raise) for n in ast.walk(r)
            }
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Name) or node.id != handler.name or id(node) in raised:
                    continue
                parent = parents[node]
                shown = (
                    (isinstance(parent, ast.Call) and ast.unparse(parent.func) == "str")
                    or isinstance(parent, ast.keyword | ast.FormattedValue)
                    or (isinstance(parent, ast.Attribute) and parent.attr == "message")
                )
                if shown:
                    found.append(f"{rel(path)}:{node.lineno} {ast.unparse(parent)}")
    return found


def test_commands_show_errors_with_describe() -> None:
    """Every command shows a caught error one way: describe(exc) (`.text(lang)` with --lang,
    else both languages, as cli_text prints). failures.py is the handler of last resort."""
    found = [
        line
        for p in sources(APP / "commands")
        if p.name != "failures.py"
        for line in shown_without_describe(p)
    ]
    assert found == []


def calls_outside(home: str, names: set[str]) -> list[str]:
    """Where app/ and audit/ call one of `names` (as written: "yaml.safe_load") outside `home`,
    the module that is the one way to do it."""
    return [
        f"{rel(p)}:{node.lineno}"
        for p in sources(APP, AUDIT)
        if rel(p) != home
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func) in names
    ]


def test_yaml_is_read_through_yamldata() -> None:
    """app/ and audit/ parse YAML one way, `app.yamldata.load` (libyaml's parser where PyYAML
    has it); writing YAML (`yaml.safe_dump`) is not parsing and stays where it is."""
    parsers = {"yaml.safe_load", "yaml.load", "yaml.full_load"}
    assert calls_outside("app/yamldata.py", parsers) == []


def test_http_calls_share_one_tls_context() -> None:
    """app/ makes HTTP calls through app.llm.net (one TLS context per process): httpx's
    module functions and a bare `httpx.Client` build a new one, 21 ms of CPU, on every call."""
    bare = {"httpx.get", "httpx.post", "httpx.put", "httpx.stream", "httpx.request", "httpx.Client"}
    assert calls_outside("app/llm/net.py", bare) == []


# The builders of the acting context (app/context.py): the one Settings, the commands' and the
# pages' context. Everything else takes the Settings it is handed.
SETTINGS_READERS = {"app/config.py", "app/cli.py", "app/pages/ui_state.py"}


def test_only_the_context_builders_read_the_settings() -> None:
    """`get_settings()` is called where the acting context is built, nowhere else in app/ or
    audit/: services take `settings=` (or the `Context`) from their page or command."""
    found = [
        f"{rel(p)}:{node.lineno}"
        for p in sources(APP, AUDIT)
        if rel(p) not in SETTINGS_READERS
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("get_settings")
    ]
    assert found == []


# Where the installation's knowledge may be unpacked from Settings or loaded from its files:
# app/knowledge.py; the server's own options (its prompt-lookup corpus); `lexspec check`, which
# reads a type's required sections from its meta.yaml as plain YAML (a type whose templates
# are broken can still be checked against).
KNOWLEDGE_READERS = {"app/knowledge.py", "app/commands/serve.py", "app/commands/check.py"}
KNOWLEDGE_LOADERS = ("load_library", "load_outlines", "load_outline")
KNOWLEDGE_PATHS = ("prompts_dir", "statutes_file")


def test_the_knowledge_is_read_through_one_object() -> None:
    """Document types, outlines and the statute file are read through `ctx.knowledge`
    (app/knowledge.py), never by loading prompts/ or unpacking Settings' paths elsewhere;
    pages build no Settings or sessions of their own (`context()`)."""
    found = []
    for p in sources(APP, AUDIT):
        if rel(p) in KNOWLEDGE_READERS or rel(p).startswith(("app/outline/", "app/serving/")):
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            called = ast.unparse(node.func) if isinstance(node, ast.Call) else ""
            if called.split(".")[-1] in KNOWLEDGE_LOADERS:
                found.append(f"{rel(p)}:{node.lineno} {called}()")
            if (
                isinstance(node, ast.Attribute)
                and node.attr in KNOWLEDGE_PATHS
                and ast.unparse(node.value).endswith("settings")
            ):
                found.append(f"{rel(p)}:{node.lineno} {ast.unparse(node)}")
    for p in sources(APP / "pages"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in {"settings", "db_session"}:
                found.append(f"{rel(p)}:{node.lineno} def {node.name}")
    assert found == []


def test_test_modules_have_unique_basenames() -> None:
    """pytest (rootdir-relative imports, no __init__ in every folder) refuses two test modules
    of the same file name at collection, which stops the whole run: each basename once."""
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(ROOT)} ~ {path.relative_to(ROOT)}")
        seen.setdefault(path.name, path)
    assert not clashes, clashes
