"""An arm's configuration is an open, validated set of keys (app.studies.arms.ARM_KEYS)."""

from __future__ import annotations

import pytest

from app.domain import Bilingual, GenerationParams
from app.studies.arms import ARM_KEYS, ArmKey, arm_params, arms_identical, clean_params
from app.studies.domain import ArmSpec, ReviewError, StudySpec


@pytest.mark.parametrize(
    ("params", "clean"),
    [
        ({}, {}),
        ({"mode": "free-form", "temperature": 0, "max_tokens": 64},
         {"mode": "free-form", "temperature": 0.0, "max_tokens": 64}),
        ({"top_p": 0.9, "seed": 3, "stop": ("END",)}, {"top_p": 0.9, "seed": 3, "stop": ["END"]}),
    ],
)  # fmt: skip
def test_valid_configurations_are_cleaned(params: dict, clean: dict) -> None:
    assert clean_params(params) == clean


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"mode": "sketch"}, "mode"),
        ({"temperature": 3}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"max_tokens": 1.5}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"speculation": "ngram"}, "speculation"),  # reported by the endpoint, not configured
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
    ],
)
def test_bad_configurations_name_the_key_in_both_languages(params: dict, named: str) -> None:
    with pytest.raises(ReviewError) as err:
        clean_params(params)
    assert named in err.value.message_zh and named in err.value.message_en


def test_a_new_key_is_one_registry_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """How the clause library's part_mode will be added: one ArmKey in ARM_KEYS."""
    from app.studies.arms import _choice

    with pytest.raises(ReviewError):
        clean_params({"part_mode": "adapt"})
    monkeypatch.setitem(
        ARM_KEYS, "part_mode", ArmKey(Bilingual("段落来源", "Parts"), _choice(("adapt", "write")))
    )
    assert clean_params({"part_mode": "adapt"}) == {"part_mode": "adapt"}
    with pytest.raises(ReviewError):
        clean_params({"part_mode": "paste"})


def test_arm_params_apply_sampling_keys_only() -> None:
    params = arm_params(GenerationParams(), {"mode": "outline", "max_tokens": 64, "stop": ["x"]})
    assert params == GenerationParams(max_tokens=64, stop=("x",))


def test_identical_arms_are_detected_among_many() -> None:
    def spec(*arms: ArmSpec) -> StudySpec:
        return StudySpec("s", "t", ({},), arms, ("r",))

    a = ArmSpec("a", "embedded", {"max_tokens": 64, "mode": "outline"})
    b = ArmSpec("b", "embedded", {"mode": "outline", "max_tokens": 64})
    c = ArmSpec("c", "plain", {"max_tokens": 64})
    assert arms_identical(spec(a, b)) and arms_identical(spec(c, a, b))
    assert not arms_identical(spec(a, c))
