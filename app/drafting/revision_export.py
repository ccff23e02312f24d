"""Export a generation's model text or any saved revision as Markdown or DOCX.

One place builds the DOCX of a version for History and `lexspec export --revision`, in one
of three copies: the review copy (the title from the document type and matter, the version's
own findings as comments and appendix), the client copy (title, addressee, matter and date;
no findings, codes or appendix) and, for a revision, the tracked copy (the redline against the
model's text as Word tracked changes, with the findings as comments). File names are the
client's, the document's and the date (app.export.naming).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from app.drafting.logged import stored_findings
from app.export.docx_writer import ExportMeta, client_copy_docx, draft_to_docx
from app.export.naming import Copy, export_name
from app.export.tracked import tracked_docx
from app.i18n import cli_text
from audit import revisions as revision_store
from audit import store
from audit.domain import StoredGeneration
from audit.revisions import StoredRevision

if TYPE_CHECKING:
    from app.config import Settings
    from app.drafting.context import ExportHeader


def file_name(
    meta: ExportMeta, revision: StoredRevision | None, *, copy: Copy = "client", ext: str = "docx"
) -> str:
    """client — document — date (the document's, else the version's) [— 第N稿] [copy]."""
    day = meta.doc_date or (meta.created.date() if meta.created else None)
    return export_name(
        title=meta.title,
        day=day or dt.date.today(),
        client=meta.client,
        copy=copy,
        revision=revision.number if revision is not None else None,
        ext=ext,
    )


def header_meta(
    header: ExportHeader,
    *,
    title: str,
    doc_date: dt.date | None,
    author: str = "",
    created: dt.datetime | None = None,
    generation_id: str | int | None = None,
    template_hash: str = "",
) -> ExportMeta:
    """The one way an export's metadata is made, for the Draft page, History and `lexspec
    export`: `title` (the document type's; empty: the draft's own title line), the header's
    client, matter and official cover, the document's date, who wrote the version and when
    (None: now), and the generation and template it came from."""
    return ExportMeta(
        title=title,
        matter_ref=header.matter_ref,
        client=header.client,
        author=author,
        created=created,
        generation_id=generation_id,
        template_hash=template_hash,
        doc_date=doc_date,
        cover_label=header.cover_label,
        subtitle=header.subtitle,
    )


def export_meta(
    generation: StoredGeneration, revision: StoredRevision | None, *, title: str, settings: Settings
) -> ExportMeta:
    """Title (the draft's own on its facts, else `title`: the document type's), matter and
    client from the form (the header the Draft page gives the same draft), the document's
    date, author and date of the version."""
    from app.drafting.logged import stored_context
    from app.knowledge import Knowledge

    context = stored_context(generation, Knowledge.of(settings))
    return header_meta(
        context.header,
        title=context.title or title,
        doc_date=context.doc_date,
        author=revision.user_name if revision else generation.record.user_name,
        created=revision.created_at if revision else generation.created_at,
        generation_id=generation.id,
        template_hash=generation.record.template_hash,
    )


def version_text(generation: StoredGeneration, revision: StoredRevision | None) -> str:
    return generation.record.output_text if revision is None else revision.text


def version_docx(
    generation: StoredGeneration,
    revision: StoredRevision | None,
    *,
    title: str,
    settings: Settings,
    copy: Copy = "review",
    meta: ExportMeta | None = None,
    style: str = "standard",
) -> bytes:
    """The DOCX of the model text (revision None) or of a revision: the review copy, the
    client copy or (a revision only) the tracked copy, in the named `style`
    (app/export/official.py; the tracked copy is always standard). The client copy and the
    official style carry no checks' comments or appendix. `meta`: export_meta's, when the caller
    has it already (it names the file too)."""
    from app.export.docx_writer import default_reference

    meta = meta or export_meta(generation, revision, title=title, settings=settings)
    if revision is not None and copy == "tracked":
        return tracked_docx(
            generation.record.output_text,
            revision.text,
            meta=meta,
            author=revision.user_name,
            date=revision.created_at,
            findings=stored_findings(revision.findings),
            reference=default_reference(settings),
        )
    text = version_text(generation, revision)
    if copy == "client" and style == "standard":
        return client_copy_docx(text, meta=meta, reference=default_reference(settings))
    findings = stored_findings(
        revision.findings if revision is not None else generation.record.findings
    )
    plain = style == "official" or copy == "client"
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
