"""Saved revisions on a real database (SQLite file; PostgreSQL when it answers): chained,
append-only, numbered per generation, found by search, permission-checked."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import PermissionDenied
from app.config import Settings
from app.drafting import revisions
from audit import revisions as revision_store
from audit import store
from audit.domain import User
from audit.vocabulary import EventKind
from tests.records import make_record

pytestmark = pytest.mark.integration
MODEL_TEXT = "一、申报主体\n依据《合同法》第五十二条办理。\n"
EDITED = "一、申报主体\n依据《民法典》第五百零二条办理。\n"


def _user(name: str, role: str = "drafter") -> User:
    return User(
        id=1, name=name, role=role, must_change_password=False, created_at=datetime.now(UTC)
    )


ALICE, BOB, ADMIN = _user("alice"), _user("bob"), _user("root", "admin")


def _generation(factory: sessionmaker[Session], **overrides: object) -> int:
    with factory() as session:
        logged = store.log_generation(
            make_record(output_text=MODEL_TEXT, **overrides), session=session
        )
        session.commit()
    return logged.id


def test_saving_appends_chained_numbered_revisions(
    db_session_factory: sessionmaker[Session],
) -> None:
    gid = _generation(db_session_factory)
    with db_session_factory() as session:
        first = revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=0, actor=ALICE
        )
        session.commit()
    with db_session_factory() as session:
        second = revisions.save_revision(
            gid,
            EDITED + "二、材料\n",
            settings=Settings(),
            session=session,
            base_revision=1,
            actor=ADMIN,
        )
        store.append_event(session=session, actor="x", kind=EventKind.ENDPOINT_SWITCH, payload={})
        session.commit()
    assert (first.number, second.number) == (1, 2)
    assert (first.user_name, second.user_name) == ("alice", "root")
    assert first.seq == 2 and second.seq == 3
    with db_session_factory() as session:
        listed = revisions.list_revisions(gid, session=session, actor=ALICE)
        report = store.verify_chain(session=session)
        now = revisions.current_text(gid, session=session)
    assert [r.text for r in listed] == [EDITED, EDITED + "二、材料\n"]
    assert report.ok and report.checked == 4, report.first_bad
    assert now is not None and now.revision is not None and now.revision.number == 2


def test_findings_are_rechecked_on_the_revised_text(
    db_session_factory: sessionmaker[Session],
) -> None:
    gid = _generation(db_session_factory)
    with db_session_factory() as session:
        saved = revisions.save_revision(
            gid,
            MODEL_TEXT + "三、其他\n",
            settings=Settings(),
            session=session,
            base_revision=0,
            actor=ALICE,
        )
        fixed = revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=1, actor=ALICE
        )
        session.commit()
    codes = {f["code"] for f in saved.findings}
    assert "citation.repealed" in codes  # 《合同法》 is still there
    assert "numbering.gap" in codes  # 一、 then 三、
    assert not {f["code"] for f in fixed.findings} & {"citation.repealed", "numbering.gap"}
    assert all(f["end"] <= len(MODEL_TEXT) + 6 for f in saved.findings)


@pytest.mark.parametrize(
    ("user", "body", "error"),
    [
        (BOB, EDITED, PermissionDenied),  # someone else's draft
        (_user("alice", "reviewer"), EDITED, PermissionDenied),  # reviewers do not edit
        (ALICE, "  \n", revisions.RevisionError),  # empty
        (ALICE, MODEL_TEXT, revisions.RevisionError),  # unchanged
    ],
)
def test_refused_saves_leave_nothing(
    db_session_factory: sessionmaker[Session], user: User, body: str, error: type[Exception]
) -> None:
    gid = _generation(db_session_factory)
    with db_session_factory() as session, pytest.raises(error):
        revisions.save_revision(
            gid, body, settings=Settings(), session=session, base_revision=0, actor=user
        )
    with db_session_factory() as session:
        assert revision_store.list_revisions(gid, session=session) == []


def test_unknown_generation_and_other_users_revisions(
    db_session_factory: sessionmaker[Session],
) -> None:
    gid = _generation(db_session_factory)
    with db_session_factory() as session:
        saved = revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=0, actor=ALICE
        )
        session.commit()
    with db_session_factory() as session:
        with pytest.raises(LookupError):
            revisions.save_revision(
                999, EDITED, settings=Settings(), session=session, base_revision=0, actor=ALICE
            )
        with pytest.raises(PermissionDenied):
            revisions.get_revision(saved.id, session=session, actor=BOB)
        generation, revision = revisions.get_revision(saved.id, session=session, actor=ADMIN)
    assert generation.id == gid and revision.text == EDITED


def test_search_finds_text_that_only_a_revision_has(
    db_session_factory: sessionmaker[Session],
) -> None:
    gid = _generation(db_session_factory)
    _generation(db_session_factory)
    with db_session_factory() as session:
        assert store.search_generations(session=session, text="五百零二条") == []
        revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=0, actor=ALICE
        )
        session.commit()
    with db_session_factory() as session:
        found = store.search_generations(session=session, text="五百零二条")
        counts = revisions.revision_counts([gid, gid + 1], session=session)
    assert [s.id for s in found] == [gid]
    assert counts == {gid: 1}


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE revisions SET text = 'forged' WHERE number = 1",
        "UPDATE revisions SET user_name = 'mallory' WHERE number = 1",
        "UPDATE revisions SET findings = '[]' WHERE number = 1",
        "DELETE FROM revisions WHERE number = 1",
    ],
)
def test_tampering_with_a_revision_is_caught(
    db_session_factory: sessionmaker[Session], statement: str
) -> None:
    gid = _generation(db_session_factory)
    with db_session_factory() as session:
        saved = revisions.save_revision(
            gid,
            MODEL_TEXT + "三、其他\n",
            settings=Settings(),
            session=session,
            base_revision=0,
            actor=ALICE,
        )
        revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=1, actor=ALICE
        )
        session.commit()
    with db_session_factory() as session:
        session.execute(text(statement))
        session.commit()
    with db_session_factory() as session:
        report = store.verify_chain(session=session)
    assert not report.ok and report.first_bad is not None
    if not statement.startswith("DELETE"):
        assert (report.first_bad.table, report.first_bad.id) == ("revisions", saved.id)


def test_cli_exports_a_revision_with_tracked_changes(
    db_url: str, db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    import io
    import os
    import subprocess
    import sys

    import docx
    from docx.oxml.ns import qn

    gid = _generation(db_session_factory, doc_type="cross-border-filing-guide")
    with db_session_factory() as session:
        saved = revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=0, actor=ALICE
        )
        session.commit()
    out = tmp_path / "rev.docx"
    env = {**os.environ, "LEXSPEC_DATABASE_URL": db_url}
    args = [sys.executable, "-m", "app.cli", "export", "--revision", str(saved.id), "--tracked"]
    done = subprocess.run(
        [*args, "--out", str(out)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "修订 1" in done.stdout and "tracked" in done.stdout
    body = docx.Document(io.BytesIO(out.read_bytes())).element.body
    assert ["".join(t.text for t in m.iter(qn("w:t"))) for m in body.iter(qn("w:ins"))] == [
        "民法典",
        "百零",
    ]
    assert all(m.get(qn("w:author")) == "alice" for m in body.iter(qn("w:ins"), qn("w:del")))
    missing = subprocess.run(
        [sys.executable, "-m", "app.cli", "export", "--revision", "999"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2 and "No revision #999" in missing.stderr


def test_a_save_based_on_an_older_revision_is_refused_and_drops_nothing(
    db_session_factory: sessionmaker[Session],
) -> None:
    """Issue 20.1: a tab still showing the model's text cannot overwrite revision 1."""
    gid = _generation(db_session_factory)
    with db_session_factory() as session:
        revisions.save_revision(
            gid, EDITED, settings=Settings(), session=session, base_revision=0, actor=ALICE
        )
        session.commit()
    stale = MODEL_TEXT + "三、另一窗口的修改\n"
    with db_session_factory() as session, pytest.raises(revisions.RevisionConflict) as caught:
        revisions.save_revision(
            gid, stale, settings=Settings(), session=session, base_revision=0, actor=ADMIN
        )
    assert caught.value.latest.number == 1 and caught.value.latest.user_name == "alice"
    assert "revision 1 by alice" in caught.value.message("en")
    assert "修订 1（alice" in caught.value.message("zh")
    with db_session_factory() as session:
        assert [r.text for r in revision_store.list_revisions(gid, session=session)] == [EDITED]
        again = revisions.save_revision(
            gid, stale, settings=Settings(), session=session, base_revision=1, actor=ADMIN
        )
        session.commit()
    assert again.number == 2  # based on the newest: saved
    with db_session_factory() as session, pytest.raises(revisions.RevisionConflict):
        revisions.save_revision(
            gid,
            EDITED + "四、\n",
            settings=Settings(),
            session=session,
            base_revision=1,
            actor=ALICE,
        )


def test_two_tabs_saving_at_once_never_both_pass(
    db_session_factory: sessionmaker[Session],
) -> None:
    """Both tabs opened the model's text; whichever saves second is refused (PostgreSQL: it
    waits for the chain lock, then sees revision 1; SQLite: the second writer may instead be
    refused by the database's own lock), so exactly one revision exists."""
    import threading

    gid = _generation(db_session_factory)
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def tab(text: str) -> None:
        with db_session_factory() as session:
            barrier.wait()
            try:
                revisions.save_revision(
                    gid, text, settings=Settings(), session=session, base_revision=0, actor=ALICE
                )
                session.commit()
                outcomes.append("saved")
            except Exception as exc:  # noqa: BLE001 - the test asserts which error each writer met
                session.rollback()
                outcomes.append(exc)

    threads = [threading.Thread(target=tab, args=(EDITED + f"{n}\n",)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with db_session_factory() as session:
        saved = revision_store.list_revisions(gid, session=session)
        dialect = session.get_bind().dialect.name
    assert len(saved) == 1 and outcomes.count("saved") == 1, outcomes
    refused = next(o for o in outcomes if o != "saved")
    if dialect == "postgresql":
        assert isinstance(refused, revisions.RevisionConflict)
