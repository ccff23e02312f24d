"""The Draft page's working state as stored: anything malformed is left out, never fatal."""

from __future__ import annotations

from app.drafting.workstate import WorkingState


def test_round_trip() -> None:
    state = WorkingState(
        "pia-report", {"draft.field.pia-report.company_name": "甲", "draft.max_tokens.pia-report": 64},
        "free-form", 7, "正文", 2,
    )  # fmt: skip
    assert WorkingState.from_dict(state.to_dict()) == state


def test_malformed_values_are_left_out() -> None:
    state = WorkingState.from_dict(
        {
            "doc_type": None,
            "widgets": {
                "draft.field.t.a": "ok",
                "draft.field.t.b": ["not", "a", "scalar"],
                "draft.field.t.c": True,
                "lexspec_user": "admin",  # not a form widget: never restored
                "draft.temperature.t": 0.3,
            },
            "mode": "<script>",
            "generation_id": "12",
            "editor": 5,
            "base": True,
        }
    )
    assert state.widgets == {"draft.field.t.a": "ok", "draft.temperature.t": 0.3}
    assert (state.doc_type, state.mode, state.generation_id, state.editor, state.base) == (
        "", "outline", None, None, 0,
    )  # fmt: skip
    assert WorkingState.from_dict({"widgets": "nope"}).widgets == {}
