"""Numbering and statute-citation checks over draft text (pure functions), with the catalogue."""

from app.validation.catalogue import (
    Catalogue,
    CatalogueError,
    Statute,
    load_catalogue,
)
from app.validation.checker import check, line_col, line_cols

__all__ = [
    "Catalogue",
    "CatalogueError",
    "Statute",
    "check",
    "line_col",
    "line_cols",
    "load_catalogue",
]
