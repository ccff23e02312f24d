"""DOCX export: a draft (plain text / light markdown) to a styled Word document."""

from app.export.cited import CitedArticle, cited_articles_of
from app.export.docx_writer import ExportError, ExportMeta, draft_to_docx

__all__ = ["CitedArticle", "ExportError", "ExportMeta", "cited_articles_of", "draft_to_docx"]
