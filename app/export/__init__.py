"""DOCX export: a draft (plain text / light markdown) to a styled Word document."""

from app.export.docx_writer import ExportError, ExportMeta, draft_to_docx

__all__ = ["ExportError", "ExportMeta", "draft_to_docx"]
