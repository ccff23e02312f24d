"""The acting context: the settings, the installation's knowledge, the database and who acts,
built once per request.

Pages (`app.pages.ui_state.context()`) and commands (`app.cli.main`) build one `Context` and
hand it down; services take it, or the pieces they need (`settings=`, `session=`, `actor=`),
instead of reading global settings. Only those builders call `app.config.get_settings()`; a
test builds a `Context` from its own `Settings` and, when it has one, its own session factory
(as the FastAPI template overrides its dependencies)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

from app.config import Settings
from app.knowledge import Knowledge

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from audit.domain import User

T = TypeVar("T")


@dataclass(frozen=True)
class Context:
    """Settings, database sessions and the acting user (None: nobody signed in yet).
    `factory` None means the installation's database of `settings`, opened (and migrated) on
    first use, so a command that never touches the database never creates one."""

    settings: Settings
    factory: sessionmaker[Session] | None = None
    actor: User | None = None

    @cached_property
    def knowledge(self) -> Knowledge:
        """The installation's document types, statute catalogue and clauses (app.knowledge)."""
        return Knowledge.of(self.settings)

    @property
    def session_factory(self) -> sessionmaker[Session]:
        """The sessions of this context's database (app.database, checkpointed commits)."""
        if self.factory is not None:
            return self.factory
        from app.database import get_session_factory

        return get_session_factory(self.settings)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One unit of work (app.database.session_scope): commits at the end, rolls back on error."""
        from app.database import session_scope

        with session_scope(self.session_factory) as session:
            yield session

    def write(self, work: Callable[[Session], T]) -> T:
        """`work(session)` in its own unit of work, retried after a transient failure."""
        from app.database import write

        return write(work, self.session_factory)
