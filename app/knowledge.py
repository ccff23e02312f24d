"""The installation's knowledge: its document types (prompts/), the statute catalogue (built in,
with the firm's file merged over it) and the clause corpus (shipped clauses and the firm's
approved ones, published under the corpus folder), behind one typed object.

`Knowledge.of(settings)` is the one place Settings become these paths; the acting Context
carries it (`ctx.knowledge`) and every page, command and service reads types, catalogue and
outlines from it instead of unpacking `prompts_dir`, `statutes_file` and the corpus folder
itself. What it loads is loaded once per installation and process: the document types are
cached by the prompts folder and the state of its files (an edited template is read again),
the catalogue by its file and mtime (app.validation.load_catalogue). Outlines are read at each
use, since the firm's approved clauses change while the app runs (their checks are cached by
the clause file's digest, app.outline.prepare.checked_clauses)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.config import Settings
    from app.outline.model import Outline, OutlineLibrary
    from app.prompts import DocType, Library
    from app.validation import Catalogue


@dataclass(frozen=True)
class Knowledge:
    """Where the installation's knowledge is read from, and what it holds. `corpus_dir` None:
    only the shipped clauses; `statutes_file` None: only the built-in catalogue."""

    prompts_dir: Path
    statutes_file: Path | None = None
    corpus_dir: Path | None = None

    @classmethod
    def of(cls, settings: Settings) -> Knowledge:
        """The installation's knowledge as `settings` configure it."""
        return cls(settings.prompts_dir, settings.statutes_file, settings.resolved_corpus_dir)

    @property
    def library(self) -> Library:
        """Every document type, with the broken ones named in `errors` (loaded once per state
        of the prompts folder)."""
        return _library(str(self.prompts_dir), _stamp(self.prompts_dir))

    @property
    def types(self) -> Mapping[str, DocType]:
        return self.library.types

    def doc_type(self, type_id: str) -> DocType | None:
        """The document type `type_id`, None when there is none (or it is broken)."""
        return self.library.types.get(type_id)

    def catalogue(self) -> Catalogue:
        """The statute catalogue: built-in, the firm's file merged over it. Raises
        CatalogueError for a broken firm file (`lexspec check`, `cite`, `export` report it)."""
        from app.validation import load_catalogue

        return load_catalogue(self.statutes_file)

    def checking_catalogue(self) -> Catalogue:
        """The catalogue a draft or a document is checked with: `catalogue`, or the built-in
        one when the firm's file is broken (a broken file must not stop a lawyer's draft or
        review; the commands read `catalogue` first, which reports it)."""
        from app.validation import CatalogueError, load_catalogue

        try:
            return self.catalogue()
        except CatalogueError:
            return load_catalogue(None)

    def has_outline(self, type_id: str) -> bool:
        """Whether the type is written part by part (prompts/<type>/outline.yaml)."""
        return (self.prompts_dir / type_id / "outline.yaml").is_file()

    def outline(self, doc_type: DocType) -> Outline | None:
        """The type's outline with the firm's clauses first, checked: it renders for the type's
        example and keeps only the clauses that pass their checks with this catalogue. None:
        the type has none. Raises OutlineError (or OSError) for a broken one."""
        from app.outline.model import load_outline
        from app.outline.prepare import check_outline

        outline = load_outline(self.prompts_dir / doc_type.id, self.corpus_dir)
        if outline is None:
            return None
        return check_outline(outline, doc_type, statutes_file=self.statutes_file)

    def outlines(self) -> OutlineLibrary:
        """Every type's checked outline, a broken one named in `errors`."""
        from app.outline.prepare import load_outlines

        return load_outlines(
            self.prompts_dir,
            self.types,
            corpus_dir=self.corpus_dir,
            statutes_file=self.statutes_file,
        )


def _stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Each file under `folder` with its mtime and size: what the cached library depends on."""
    stamp = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
        try:
            info = path.stat()
        except OSError:
            continue
        stamp.append((str(path), info.st_mtime_ns, info.st_size))
    return tuple(stamp)


@lru_cache(maxsize=4)
def _library(prompts_dir: str, _stamp: tuple[tuple[str, int, int], ...]) -> Library:
    from app.prompts import load_library

    return load_library(Path(prompts_dir))
