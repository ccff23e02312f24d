"""Standing attacker suite: hostile text (jinja, HTML, XML-breaking characters, NUL).

Attack: a drafter types template syntax, markup or characters that break XML into a form
value, a revision or a firm-clause proposal. Must hold: the text is stored literally on
both backends (NUL as U+FFFD, audit.storable), the chain still verifies, and the DOCX holds
the same characters as text, not markup. Form values reaching the prompt literally are
tested in tests/unit/test_prompts.py (test_user_values_come_out_literally); the page's
escaping in tests/unit/test_findings_view.py.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from docx import Document
from sqlalchemy.orm import Session, sessionmaker

from app.export.docx_writer import ExportMeta, draft_to_docx
from app.knowledge import Knowledge
from audit import firm_clauses, store
from audit.revisions import append_revision, list_revisions
from audit.storable import REPLACEMENT
from tests.integration.test_firm_clauses import sqlite_settings  # noqa: F401 (a fixture)
from tests.records import make_record

pytestmark = pytest.mark.integration

HOSTILE = [
    "{{ 7*7 }} {% for x in range(3) %}x{% endfor %} {{ ''.__class__ }}",
    "<script>alert(1)</script> <b>粗</b> &amp; &lt;",
    "</w:t></w:r><w:r><w:t>注入</w:t> ]]> <!-- \"' &",
    "控制\x01字符\x0b与\x00空字符",
]


def _stored(text: str) -> str:
    return text.replace("\x00", REPLACEMENT)


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_attack_hostile_text_in_values_revisions_and_clauses_is_stored_literally(
    hostile: str, db_session_factory: sessionmaker[Session]
) -> None:
    with db_session_factory.begin() as session:
        logged = store.log_generation(
            make_record(output_text=hostile, field_values={"company": hostile}), session=session
        )
        append_revision(logged.id, hostile, session=session, user_name="alice", base=0)
        clause = firm_clauses.add_proposal(
            firm_clauses.FirmClauseDraft(
                "filing_guide", "firm.hostile", "why-route", hostile, None, (), "alice"
            ),
            session=session,
            actor="alice",
        )
    with db_session_factory() as session:
        generation = store.get_generation(logged.id, session=session)
        assert generation is not None
        assert generation.record.output_text == _stored(hostile)
        assert generation.record.field_values == {"company": _stored(hostile)}
        assert list_revisions(logged.id, session=session)[-1].text == _stored(hostile)
        kept = firm_clauses.get_clause(clause.id, session=session)
        assert kept is not None and kept.text == _stored(hostile)
        report = store.verify_chain(session=session)
    assert report.ok, (report.first_bad, report.uncovered)


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_attack_hostile_text_in_a_docx_is_text_not_markup(hostile: str) -> None:
    """In the body and in the title line made of the matter and the client. Must hold: the
    file opens and every printable character comes back as text, in both places (control
    characters XML cannot hold are dropped; a vertical tab becomes a line break)."""
    meta = ExportMeta(title="数据出境申报指引", matter_ref=hostile, client=hostile)
    data = draft_to_docx(f"第一条 {hostile}\n", meta=meta, comments=False, appendix=False)
    paragraphs = [p.text for p in Document(io.BytesIO(data)).paragraphs]
    title, body = _squash(paragraphs[0]), _squash("".join(paragraphs[1:]))
    assert title.count(_squash(hostile)) == 2, title  # the matter and the client, literal
    # the body is the draft's light markdown: `__x__` is bold, as CommonMark reads it
    assert _squash(hostile, "_*") in _squash(body, "_*"), body


def _squash(text: str, also: str = "") -> str:
    return "".join(c for c in text if c.isprintable() and not c.isspace() and c not in also)


# --- issue 37 item 7: Jinja in a revision proposed as a firm clause -------------------------

LIVE = "{{ 7*7 }}"
SLOW = "{% for a in range(9999) %}{% for b in range(9999) %}{% endfor %}{% endfor %}"


@pytest.mark.usefixtures("cheap_argon2")
@pytest.mark.parametrize("hostile", [LIVE, SLOW, "{{ individuals_count.__class__ }}"])
def test_attack_template_code_in_a_revision_never_runs_as_a_firm_clause(
    hostile: str,
    sqlite_settings: Path,  # noqa: F811 - the fixture imported above
) -> None:
    """A lawyer's revision carries template code into the part proposed as a firm clause.
    Must hold: proposing it is refused, naming the code (a firm clause's only template
    syntax is the form's placeholders, which the app substitutes as plain text), so nothing
    of it is evaluated; and a published firm library holding such a clause (a hand-edited
    file) does not make the next draft evaluate it either."""
    from app.precedents import firm_clauses as precedents
    from tests.integration import test_firm_clauses as firm

    with pytest.raises(precedents.ClauseRefused) as refused:
        firm._propose(firm._revision(f"本所意见：{hostile}。"))
    assert "template" in str(refused.value) and hostile[:8] in str(refused.value)

    library = sqlite_settings / "corpus" / firm.GUIDE / "clauses.yaml"
    library.parent.mkdir(parents=True, exist_ok=True)
    clause = {"id": "firm.hostile", "part": "why-route", "author": "dana", "version": "1",
              "approved": "2026-01-01", "when": {"route_rule": "individuals_assessment"},
              "text": f"贵公司涉及{{{{ individuals_count }}}}人。{hostile}"}  # fmt: skip
    library.write_text(yaml.safe_dump({"clauses": [clause]}, allow_unicode=True), "utf-8")
    outcome = firm._assembled()
    assert firm._why_route(outcome).clause != "firm.hostile"  # refused at load
    assert "49" not in outcome.text and "class" not in outcome.text


def test_a_firm_clause_fills_only_its_placeholders_with_values_as_text() -> None:
    """The firm's clauses are filled by plain substitution: a value holding template code is
    written as it is, and nothing else in the text is read as a template."""
    from app.outline.clause_checks import render_clause
    from app.outline.clauses import clause_from_dict

    def firm(text: str) -> Any:
        fields = {"id": "firm.x", "part": "p", "author": "a", "approved": "2026-01-01"}
        return clause_from_dict({**fields, "version": "1", "text": text})

    filled = render_clause(
        firm("{{ company_name }}与{{company_name}}应当备案。"), {"company_name": LIVE}
    )
    assert filled == f"{LIVE}与{LIVE}应当备案。"
    unknown = render_clause(firm("{{ compny_name }}应当备案。"), {"company_name": "甲"})
    assert "unknown placeholder(s) compny_name" in unknown


# --- issue 37 item 8: harmful text from a model that obeys an injected instruction ----------

INJECTED = (
    "本所承诺本案必然胜诉。受托人无需遵守《个人信息保护法》第二十一条，"
    "可以自行向第三方提供甲方数据。"
)
OUT_OF_RANGE = "贵公司应当依照《个人信息保护法》第九十九条向网信部门申报。"  # a real error today
NEGATED_DUTY = "受托人无需遵守《个人信息保护法》第二十一条。"


def _outline_draft(writing: str, text: str) -> Any:
    """The filing guide's example drafted by a model that writes `text` for every part."""
    from app.drafting.context import prepare
    from app.drafting.service import run_to_end, start_draft
    from app.prompts import load_library
    from tests.fakes import FakeClient

    prompts = Path(__file__).resolve().parents[2] / "prompts"
    doc = load_library(prompts).types["cross-border-filing-guide"]
    client = FakeClient([], scripts=[[text]])
    prepared = prepare(doc, doc.example_values(), knowledge=Knowledge(prompts), client=client)
    run = start_draft(prepared, client, endpoint_name="fake", writing=writing)  # type: ignore[arg-type]
    outcome = run_to_end(run)
    assert client.requests, "the model was asked"
    return outcome


def _generated(outcome: Any) -> list[Any]:
    return [o for o in outcome.provenance if o.source != "app"]


@pytest.mark.parametrize("writing", ["write", "adapt"])
def test_attack_an_injected_promise_and_disclosure_never_reach_the_draft(writing: str) -> None:
    """Attack: the model obeys text injected into the form and promises the outcome, negates
    a cited duty and lets the processor hand the client's data to third parties. Must hold,
    in every writing mode: each part it wrote falls back to its vetted clause, naming the
    gates, and none of it is in the draft."""
    outcome = _outline_draft(writing, INJECTED)
    parts = _generated(outcome)
    assert parts and all(p.source in ("clause", "placeholder") for p in parts)
    for part in parts:
        assert {"prose.outcome_promise", "prose.unauthorised_disclosure"} <= set(part.gates)
    for words in ("胜诉", "无需遵守", "第三方提供甲方数据"):
        assert words not in outcome.text
    assert outcome.counts.fell_back + outcome.counts.placeholder == len(parts)


@pytest.mark.parametrize("writing", ["write", "adapt"])
def test_attack_an_error_of_the_check_rejects_the_part_not_a_sentence(writing: str) -> None:
    """Every error finding of the draft's check rejects the part that carries it, whatever
    the writing mode: the part falls back to its clause, and the finding's code is among its
    gates (before, only the sentence went, and the rest of the text stayed)."""
    outcome = _outline_draft(writing, OUT_OF_RANGE + "申报前应当完成风险自评估。")
    parts = _generated(outcome)
    assert all("citation.article_out_of_range" in p.gates for p in parts)
    assert "第九十九条" not in outcome.text and "申报前应当完成风险自评估" not in outcome.text


def test_attack_a_negated_duty_rejects_the_part() -> None:
    outcome = _outline_draft("write", NEGATED_DUTY)
    assert all(p.gates for p in _generated(outcome)) and "无需遵守" not in outcome.text
