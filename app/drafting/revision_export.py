"""Export a generation's model text or any saved revision as Markdown or DOCX.

One place builds the DOCX of a version for History and `lexspec export --revision`:
the title from the document type and matter, the version's own findings as comments
and appendix, and, for a revision, optionally the redline against the model's text as
Word tracked changes (author and date of the revision).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from app.drafting.logged import stored_findings
from app.export import ExportMeta, draft_to_docx
from app.export.tracked import tracked_docx
from app.i18n import cli_text
from audit import revisions as revision_store
from audit import store
from audit.domain import StoredGeneration
from audit.revisions import StoredRevision

if TYPE_CHECKING:
    from app.config import Settings


def file_stem(generation: StoredGeneration, revision: StoredRevision | None) -> str:
    """`<doc type>-<generation id>` for the model text, `...-r<number>` for a revision."""
    stem = f"{generation.record.doc_type}-{generation.id}"
    return stem if revision is None else f"{stem}-r{revision.number}"


def export_meta(
    generation: StoredGeneration, revision: StoredRevision | None, *, title: str, settings: Settings
) -> ExportMeta:
    """Title (document type), matter and client from the form (the header the Draft page
    gives the same draft), author and date of the version."""
    from app.drafting.context import stored_context

    context = stored_context(generation, settings)
    header = context.header
    return ExportMeta(
        title=title,
        matter_ref=header.matter_ref,
        client=header.client,
        author=revision.user_name if revision else generation.record.user_name,
        created=revision.created_at if revision else generation.created_at,
        generation_id=generation.id,
        template_hash=generation.record.template_hash,
        cover_label=header.cover_label,
        subtitle=header.subtitle,
        date=context.doc_date,
    )


def version_text(generation: StoredGeneration, revision: StoredRevision | None) -> str:
    return generation.record.output_text if revision is None else revision.text


def version_docx(
    generation: StoredGeneration,
    revision: StoredRevision | None,
    *,
    title: str,
    settings: Settings,
    tracked: bool = False,
    style: str = "standard",
) -> bytes:
    """The DOCX of the model text (revision None) or of a revision, tracked if asked (in the
    standard style), else in the named `style` (app/export/official.py), without the checks'
    comments and appendix in the official copy."""
    from app.export.docx_writer import default_reference

    meta = export_meta(generation, revision, title=title, settings=settings)
    if revision is not None and tracked:
        reference = default_reference(settings)
        return tracked_docx(
            generation.record.output_text,
            revision.text,
            meta=meta,
            author=revision.user_name,
            date=revision.created_at,
            findings=stored_findings(revision.findings),
            reference=reference,
        )
    findings = stored_findings(
        revision.findings if revision is not None else generation.record.findings
    )
    text = version_text(generation, revision)
    plain = style == "official"
    return draft_to_docx(
        text,
        meta=meta,
        findings=findings,
        comments=not plain,
        appendix=not plain,
        reference=default_reference(settings, style),
        style=style,
    )


def load_revision(revision_id: int, *, session: Session) -> tuple[StoredGeneration, StoredRevision]:
    """A revision and its generation for an operator's export (the CLI has no signed-in user)."""
    revision = revision_store.get_revision(revision_id, session=session)
    generation = (
        None if revision is None else store.get_generation(revision.generation_id, session=session)
    )
    if revision is None or generation is None:
        raise LookupError(cli_text("revisions.not_found", id=revision_id))
    return generation, revision
