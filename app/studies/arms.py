"""An arm of a study is any drafting configuration: an endpoint plus an open, validated set of
keys (ARM_KEYS). Each key is declared once here with its check; the Studies page, the study
YAML (`lexspec study create`) and generation all read this registry. To add a key (e.g. the
clause library's `part_mode`), add one line to ARM_KEYS and use it in `arm_params` / the
draft service.

What an arm is configured with is one thing; what actually produced a draft is another:
`item_config` records, with every item, the endpoint (its URL and model), the mode, the
sampling settings and the speculation the endpoint reported for that generation, so a later
change to the arm or the endpoint cannot rewrite what produced an item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app.domain import DRAFT_MODES, Bilingual, DraftMode, GenerationParams
from app.studies.domain import ArmSpec, ReviewError, StudySpec

if TYPE_CHECKING:
    from app.config import EndpointConfig, Settings
    from app.drafting.outcome import GenerationOutcome


def _number(lo: float, hi: float, *, whole: bool) -> Callable[[str, Any], Any]:
    def check(key: str, value: Any) -> Any:
        ok_type = isinstance(value, int) if whole else isinstance(value, int | float)
        if isinstance(value, bool) or not ok_type or not lo <= value <= hi:
            kind = ("整数", "a whole number") if whole else ("数值", "a number")
            raise ReviewError(
                f"「{key}」须为 {lo}–{hi} 之间的{kind[0]}（收到 {value!r}）",
                f"'{key}' must be {kind[1]} from {lo} to {hi} (got {value!r})",
            )
        return int(value) if whole else float(value)

    return check


def _choice(options: tuple[str, ...]) -> Callable[[str, Any], Any]:
    def check(key: str, value: Any) -> Any:
        if value not in options:
            raise ReviewError(
                f"「{key}」须为 {'、'.join(options)}（收到 {value!r}）",
                f"'{key}' must be one of {', '.join(options)} (got {value!r})",
            )
        return value

    return check


def _stops(key: str, value: Any) -> Any:
    if not isinstance(value, list | tuple) or len(value) > 4:
        raise ReviewError(f"「{key}」须为至多 4 个字符串", f"'{key}' must be up to 4 strings")
    return [str(v) for v in value]


@dataclass(frozen=True)
class ArmKey:
    """One configurable property of an arm: its label and its check (returns the clean value
    or raises ReviewError)."""

    label: Bilingual
    check: Callable[[str, Any], Any]


ARM_KEYS: dict[str, ArmKey] = {
    "mode": ArmKey(Bilingual("起草方式", "Drafting mode"), _choice(DRAFT_MODES)),
    "temperature": ArmKey(Bilingual("温度", "Temperature"), _number(0, 2, whole=False)),
    "max_tokens": ArmKey(Bilingual("最大 token 数", "Max tokens"), _number(1, 32768, whole=True)),
    "top_p": ArmKey(Bilingual("top_p", "top_p"), _number(0.01, 1, whole=False)),
    "seed": ArmKey(Bilingual("随机种子", "Seed"), _number(0, 2**31 - 1, whole=True)),
    "stop": ArmKey(Bilingual("停止序列", "Stop sequences"), _stops),
}


def clean_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """An arm's configuration checked key by key against ARM_KEYS; ReviewError names the
    first unknown key or bad value."""
    unknown = sorted(set(params) - set(ARM_KEYS))
    if unknown:
        bad, known = ", ".join(unknown), ", ".join(ARM_KEYS)
        raise ReviewError(
            f"未知的对照组设置：{bad}（可用：{known}）",
            f"Unknown arm setting: {bad} (known: {known})",
        )
    return {key: ARM_KEYS[key].check(key, value) for key, value in params.items()}


def check_arms(spec: StudySpec, settings: Settings) -> StudySpec:
    """Every arm's endpoint exists and its configuration is valid; the spec with clean params."""
    endpoints = settings.all_endpoints()
    arms = []
    for arm in spec.arms:
        if arm.endpoint not in endpoints:
            known = ", ".join(endpoints)
            raise ReviewError(
                f"未知端点「{arm.endpoint}」（可用：{known}）",
                f"Unknown endpoint '{arm.endpoint}' (known: {known})",
            )
        arms.append(ArmSpec(arm.label, arm.endpoint, clean_params(arm.params)))
    return replace(spec, arms=tuple(arms))


def arms_identical(spec: StudySpec) -> bool:
    """True when two arms use the same endpoint and configuration (an A/A comparison)."""
    seen = [(a.endpoint, sorted(a.params.items(), key=lambda kv: kv[0])) for a in spec.arms]
    return len({repr(s) for s in seen}) < len(seen)


def arm_params(defaults: GenerationParams, overrides: Mapping[str, Any]) -> GenerationParams:
    """The document type's defaults with an arm's sampling overrides (stop as a tuple)."""
    names = set(GenerationParams.__dataclass_fields__)
    clean = {k: v for k, v in overrides.items() if k in names}
    if "stop" in clean:
        clean["stop"] = tuple(clean["stop"])
    return replace(defaults, **clean)


def arm_mode(overrides: Mapping[str, Any]) -> DraftMode | None:
    """An arm's drafting mode (None: the outline where the type has one)."""
    mode = overrides.get("mode")
    return next((m for m in DRAFT_MODES if m == mode), None)


def item_config(
    arm_params_: Mapping[str, Any], endpoint_name: str, endpoint: EndpointConfig,
    outcome: GenerationOutcome,
) -> dict[str, Any]:  # fmt: skip
    """What produced one draft, as stored with the item (JSON)."""
    stats = outcome.stats
    reported = stats.spec_method is not None or stats.draft_tokens is not None
    return {
        "endpoint": endpoint_name,
        "base_url": endpoint.base_url,
        "model": outcome.model,
        "endpoint_label": endpoint.label,
        "mode": outcome.mode,
        "temperature": outcome.params.temperature,
        "top_p": outcome.params.top_p,
        "max_tokens": outcome.params.max_tokens,
        "arm": dict(arm_params_),
        # as the endpoint reported it in spec_decode, None when it reported nothing
        "speculation": {
            "method": stats.spec_method,
            "draft_tokens": stats.draft_tokens,
            "accepted_tokens": stats.accepted_tokens,
        }
        if reported
        else None,
    }
