"""The one list of the modules that declare tables on `audit.models.Base`.

Importing this module maps every table, so `METADATA` is the whole schema: Alembic's
autogenerate target (audit/migrations/env.py, through `audit.db.all_metadata`) and what the
test that compares the models with the migrations reads. A new table module is added here,
by import, so a typo is an import error rather than a table silently left out. The studies'
tables live in app/studies/tables.py (the chain covers verdicts and preferences:
audit/coverage.py imports them too); that module imports nothing of `app` but audit.
"""

from __future__ import annotations

from types import ModuleType

from sqlalchemy import MetaData

from app.studies import tables as study_tables
from audit import clause_models, matter_models, models, revision_models, workstate_models

TABLE_MODULES: tuple[ModuleType, ...] = (
    models,
    study_tables,
    revision_models,
    clause_models,
    matter_models,
    workstate_models,
)
METADATA: MetaData = models.Base.metadata
