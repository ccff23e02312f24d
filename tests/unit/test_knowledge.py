"""The installation's knowledge (app/knowledge.py): loaded once, read again when its files
change, carried by the acting context."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.config import REPO_ROOT, Settings
from app.context import Context
from app.knowledge import Knowledge
from app.validation import load_catalogue

GUIDE = "cross-border-filing-guide"


def test_the_context_carries_the_installations_knowledge(tmp_path: Path) -> None:
    firm = tmp_path / "firm.yaml"
    settings = Settings(data_dir=tmp_path, statutes_file=firm)
    ctx = Context(settings)
    assert ctx.knowledge is ctx.knowledge  # built once per context
    assert ctx.knowledge == Knowledge(REPO_ROOT / "prompts", firm, tmp_path / "corpus")


def test_types_are_loaded_once_and_again_after_an_edit(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    shutil.copytree(REPO_ROOT / "prompts" / GUIDE, prompts / GUIDE)
    first = Knowledge(prompts).library
    assert Knowledge(prompts).library is first  # a second Knowledge of the same folder: no reload
    assert GUIDE in first.types and not first.errors
    meta = prompts / GUIDE / "meta.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    again = Knowledge(prompts).library
    assert again is not first and GUIDE in again.types
    (prompts / GUIDE / "user.j2").unlink()
    broken = Knowledge(prompts).library
    assert GUIDE not in broken.types and broken.errors[0].startswith(GUIDE)
    assert Knowledge(prompts).doc_type(GUIDE) is None


def test_a_broken_firm_catalogue_is_reported_yet_checks_go_on(tmp_path: Path) -> None:
    broken = tmp_path / "firm.yaml"
    broken.write_text("statutes: [{no_name: 1}]\n", encoding="utf-8")
    knowledge = Knowledge(REPO_ROOT / "prompts", broken)
    try:
        knowledge.catalogue()
    except ValueError as exc:  # CatalogueError: bilingual, names the file
        assert "firm.yaml" in str(exc)
    else:
        raise AssertionError("a broken firm catalogue must be reported")
    assert knowledge.checking_catalogue() is load_catalogue(None)


def test_outlines_come_checked_with_the_firms_clauses_first(tmp_path: Path) -> None:
    knowledge = Knowledge(REPO_ROOT / "prompts", None, tmp_path / "corpus")
    doc = knowledge.doc_type(GUIDE)
    assert doc is not None and knowledge.has_outline(GUIDE)
    outline = knowledge.outline(doc)
    assert outline is not None and outline.clauses and not outline.clause_errors
    every = knowledge.outlines()
    assert GUIDE in every.outlines and not every.errors


def test_an_outline_and_its_clauses_are_parsed_again_only_when_their_text_changes(
    tmp_path: Path,
) -> None:
    """Outlines are read at every use (the firm's clauses change while the app runs); the
    parse is kept per text, so an unchanged file is not parsed again and an edit is seen."""
    from app.outline.model import load_outline

    folder = tmp_path / GUIDE
    shutil.copytree(REPO_ROOT / "prompts" / GUIDE, folder)
    first = load_outline(folder)
    again = load_outline(folder)
    assert first is not None and again is not None
    assert again.sections is first.sections  # the same parse, not an equal one
    assert all(a is b for a, b in zip(again.clauses, first.clauses, strict=True))
    clauses = folder / "clauses.yaml"
    edited = clauses.read_text(encoding="utf-8").replace("guide.why-route.individuals", "x.y", 1)
    clauses.write_text(edited, encoding="utf-8")
    changed = load_outline(folder)
    assert changed is not None and changed.sections is first.sections
    assert {c.id for c in changed.clauses} - {c.id for c in first.clauses} == {"x.y"}
    assert changed.hash != first.hash
