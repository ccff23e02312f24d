"""Document types (prompts/<type>/meta.yaml + system.j2 + user.j2) and safe prompt rendering.

Templates run in a jinja2 SandboxedEnvironment with StrictUndefined. User field values are
passed as data (template variables), never compiled as template source, so "{{ 7*7 }}" in a
field comes out literally.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from app import yamldata
from app.domain import (
    MAX_TEMPERATURE,
    Bilingual,
    BilingualError,
    BilingualMessage,
    GenerationParams,
    NumberingStyle,
    RenderedPrompt,
    validation_reasons,
)
from app.route.form import parse_count

if TYPE_CHECKING:
    from app.llm.client import LLMClient
    from app.route import RouteDecision

FieldKind = Literal["text", "textarea", "select", "date", "number", "count"]
ErrorCode = Literal[
    "missing", "too_long", "not_a_choice", "not_a_number", "not_a_count", "bad_date"
]
TEMPLATE_FILES = ("meta.yaml", "system.j2", "user.j2")
DEFAULT_MAX_LENGTH = {
    "text": 200,
    "textarea": 4000,
    "select": 200,
    "date": 10,
    "number": 20,
    "count": 20,
}


# --- meta.yaml schema (validated with pydantic, then turned into frozen dataclasses) ------


class _Bilingual(BaseModel):
    model_config = ConfigDict(extra="forbid")
    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)


class _Choice(BaseModel):
    """A select's choice: the canonical value (stored, sent to the model) and its English label."""

    model_config = ConfigDict(extra="forbid")
    value: str = Field(min_length=1)
    en: str = ""


class _FieldMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: _Bilingual
    kind: FieldKind
    required: bool = False
    max_length: int | None = Field(default=None, gt=0)
    choices: list[str | _Choice] = Field(default_factory=list)  # a plain string: value only
    example: str = ""
    # the matter's fact this field starts from when drafted for a matter (default: its name)
    matter_fact: str = Field(default="", pattern=r"^([a-z][a-z0-9_]*)?$")

    @model_validator(mode="after")
    def _choices_fit_kind(self) -> _FieldMeta:
        if self.kind == "select" and not self.choices:
            raise ValueError(f"field {self.name}: a select needs choices")
        if self.kind != "select" and self.choices:
            raise ValueError(f"field {self.name}: only a select has choices")
        values = [c if isinstance(c, str) else c.value for c in self.choices]
        if len(values) != len(set(values)):
            raise ValueError(f"field {self.name}: choice values must be unique")
        return self


class _Defaults(BaseModel):
    model_config = ConfigDict(extra="forbid")
    temperature: float = Field(default=0.2, ge=0, le=MAX_TEMPERATURE)
    top_p: float = Field(default=1.0, gt=0, le=1)
    max_tokens: int = Field(default=512, gt=0)
    seed: int | None = None
    stop: list[str] = Field(default_factory=list)


class _Docx(BaseModel):
    """How the type's DOCX is set by default: `official` (the filing templates' format, with a
    cover naming the processor: `cover_label`, `subtitle`) or `standard`."""

    model_config = ConfigDict(extra="forbid")
    style: Literal["standard", "official"] = "standard"
    cover_label: str = ""
    subtitle: str = ""


class _Meta(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    version: str = Field(min_length=1)
    title: _Bilingual
    help: _Bilingual
    numbering: NumberingStyle = "chinese"
    required_sections: list[str] = Field(default_factory=list)
    statutes: list[str] = Field(default_factory=list)
    # the transfer route this type is written for: the route (app/route) goes into its prompt
    route: Literal["security_assessment", "standard_contract_or_certification"] | None = None
    defaults: _Defaults = Field(default_factory=_Defaults)
    matter: bool = False  # one of a matter's documents: its form starts from the matter's facts
    docx: _Docx = Field(default_factory=_Docx)
    fields: list[_FieldMeta] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_field_names(self) -> _Meta:
        names = [f.name for f in self.fields]
        if len(names) != len(set(names)):
            raise ValueError("field names must be unique")
        return self


# --- public types ----------------------------------------------------------------------


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label_zh: str
    label_en: str
    kind: FieldKind
    required: bool
    max_length: int
    choices: tuple[str, ...] = ()  # canonical values: what is stored and sent to the model
    example: str = ""
    choices_en: tuple[str, ...] = ()  # English label of each choice ("" = show the value)
    matter_fact: str = ""  # the matter's fact it starts from ("": its own name)

    @property
    def fact(self) -> str:
        """The name of the matter's fact this field starts from."""
        return self.matter_fact or self.name

    def label(self, lang: str = "zh") -> str:
        return Bilingual(self.label_zh, self.label_en).text(lang)

    def choice_label(self, value: str, lang: str = "zh") -> str:
        """How a choice reads in the UI language; the value itself in Chinese or if untranslated."""
        english = dict(zip(self.choices, self.choices_en, strict=False)).get(value, "")
        return Bilingual(value, english).text(lang)


@dataclass(frozen=True)
class DocType:
    id: str
    title_zh: str
    title_en: str
    help_zh: str
    help_en: str
    version: str
    fields: tuple[FieldSpec, ...]
    required_sections: tuple[str, ...]
    numbering: NumberingStyle
    statutes: tuple[str, ...]
    defaults: GenerationParams
    template_hash: str = ""
    route: str | None = None  # the transfer route this type is for (meta.yaml `route`)
    in_matter: bool = False  # meta.yaml `matter`: drafted from a matter's facts
    docx_style: str = "standard"  # meta.yaml `docx.style`: the DOCX style it downloads in
    cover_label: str = ""  # the official style's cover: 数据处理者名称 ...
    cover_subtitle: str = ""  # ... and the line under the title: （出境版）
    system_source: str = field(default="", repr=False)
    user_source: str = field(default="", repr=False)

    def title(self, lang: str = "zh") -> str:
        return Bilingual(self.title_zh, self.title_en).text(lang)

    def help(self, lang: str = "zh") -> str:
        return Bilingual(self.help_zh, self.help_en).text(lang)

    def example_values(self) -> dict[str, str]:
        return {f.name: f.example for f in self.fields if f.example}

    def get_field(self, name: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.name == name), None)

    def document_date(self, values: Mapping[str, object]) -> date | None:
        """The document's date: the first `kind: date` field filled with a valid YYYY-MM-DD
        (拟申报日期, 标准合同生效日期); None when the type has none or it is empty, and the
        checks then use today. Citations are checked against the statutes in force on it."""
        for spec in self.fields:
            if spec.kind != "date":
                continue
            try:
                return date.fromisoformat(str(values.get(spec.name) or "").strip())
            except ValueError:
                continue
        return None


@dataclass(frozen=True)
class Library:
    types: dict[str, DocType]
    errors: list[str]


@dataclass(frozen=True)
class FieldError(BilingualMessage):
    code: ErrorCode
    message_zh: str
    message_en: str


class FieldErrors(ValueError):
    """One or more form fields are invalid; `.errors` maps field name to its error."""

    def __init__(self, errors: dict[str, FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {e.message_en}" for k, e in errors.items()))


class TemplateProblem(ValueError):
    """A template failed to render (sandbox violation, undefined variable, syntax error)."""


class ContextTooLong(BilingualError, ValueError):
    """Prompt + max_tokens does not fit the model's context window."""

    def __init__(self, prompt_tokens: int, max_tokens: int, context_limit: int) -> None:
        self.prompt_tokens, self.max_tokens, self.context_limit = (
            prompt_tokens,
            max_tokens,
            context_limit,
        )
        message_zh = (
            f"提示词 {prompt_tokens} 个 token + 最大生成长度 {max_tokens} 个 token = "
            f"{prompt_tokens + max_tokens}，超过模型上下文上限 {context_limit}。"
            f"请缩短输入或将最大生成长度降到 {max(context_limit - prompt_tokens, 0)} 以下。"
        )
        message_en = (
            f"Prompt {prompt_tokens} tokens + max_tokens {max_tokens} = "
            f"{prompt_tokens + max_tokens}, more than the model's context of {context_limit}. "
            f"Shorten the input or lower max_tokens to at most {max(context_limit - prompt_tokens, 0)}."
        )
        super().__init__(message_zh, message_en)


# --- loading ---------------------------------------------------------------------------


def sandbox() -> SandboxedEnvironment:
    """The one jinja2 environment for prompts, outlines and clauses: sandboxed, StrictUndefined;
    user values are passed as data, never compiled as template source."""
    return SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False
    )


def template_hash(type_dir: Path) -> str:
    """sha256 over meta.yaml, system.j2 and user.j2 (name + bytes, fixed order): stable."""
    digest = hashlib.sha256()
    for name in TEMPLATE_FILES:
        data = (type_dir / name).read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _field_spec(meta: _FieldMeta) -> FieldSpec:
    return FieldSpec(
        name=meta.name,
        label_zh=meta.label.zh,
        label_en=meta.label.en,
        kind=meta.kind,
        required=meta.required,
        max_length=meta.max_length or DEFAULT_MAX_LENGTH[meta.kind],
        choices=tuple(c if isinstance(c, str) else c.value for c in meta.choices),
        example=meta.example,
        choices_en=tuple("" if isinstance(c, str) else c.en for c in meta.choices),
        matter_fact=meta.matter_fact,
    )


def load_doc_type(type_dir: Path) -> DocType:
    """Load and validate one document type; raises ValueError with the reason."""
    missing = [n for n in TEMPLATE_FILES if not (type_dir / n).is_file()]
    if missing:
        raise ValueError(f"missing file(s): {', '.join(missing)}")
    try:
        raw = yamldata.load((type_dir / "meta.yaml").read_text(encoding="utf-8"))
        meta = _Meta.model_validate(raw)
    except yamldata.YAMLError as exc:
        raise ValueError(f"meta.yaml is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        raise ValueError(f"meta.yaml: {validation_reasons(exc, 'meta')}") from exc
    if meta.id != type_dir.name:
        raise ValueError(f"meta.yaml id {meta.id!r} differs from the folder name")
    d = meta.defaults
    doc = DocType(
        id=meta.id,
        title_zh=meta.title.zh,
        title_en=meta.title.en,
        help_zh=meta.help.zh,
        help_en=meta.help.en,
        version=meta.version,
        fields=tuple(_field_spec(f) for f in meta.fields),
        required_sections=tuple(meta.required_sections),
        numbering=meta.numbering,
        statutes=tuple(meta.statutes),
        defaults=GenerationParams(d.temperature, d.top_p, d.max_tokens, d.seed, tuple(d.stop)),
        template_hash=template_hash(type_dir),
        route=meta.route,
        in_matter=meta.matter,
        docx_style=meta.docx.style,
        cover_label=meta.docx.cover_label,
        cover_subtitle=meta.docx.subtitle,
        system_source=(type_dir / "system.j2").read_text(encoding="utf-8"),
        user_source=(type_dir / "user.j2").read_text(encoding="utf-8"),
    )
    render(doc, doc.example_values(), route=None)  # templates must compile with their example
    return doc


def load_library(prompts_dir: Path) -> Library:
    """Every document type under prompts_dir; a broken one is reported by name, the rest load."""
    types: dict[str, DocType] = {}
    errors: list[str] = []
    if not prompts_dir.is_dir():
        return Library(types, [f"prompts directory not found: {prompts_dir.name}"])
    for type_dir in sorted(p for p in prompts_dir.iterdir() if p.is_dir()):
        if type_dir.name.startswith((".", "_")):
            continue
        try:
            types[type_dir.name] = load_doc_type(type_dir)
        except (ValueError, OSError) as exc:
            errors.append(f"{type_dir.name}: {exc}")
    return Library(types, errors)


# --- validation and rendering ----------------------------------------------------------

_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


def _en_choice(spec: FieldSpec, value: str) -> str:
    english = spec.choice_label(value, "en")
    return value if english == value else f"{english} ({value})"


def _error(code: ErrorCode, spec: FieldSpec, extra: str = "") -> FieldError:
    zh, en = spec.label_zh, spec.label_en
    texts = {
        "missing": (f"「{zh}」为必填项。", f"'{en}' is required."),
        "too_long": (
            f"「{zh}」超过 {spec.max_length} 字的上限（当前 {extra} 字）。",
            f"'{en}' is longer than {spec.max_length} characters ({extra}).",
        ),
        "not_a_choice": (
            f"「{zh}」须为以下之一：{'、'.join(spec.choices)}。",
            f"'{en}' must be one of: {', '.join(_en_choice(spec, c) for c in spec.choices)}.",
        ),
        "not_a_number": (f"「{zh}」须为数字。", f"'{en}' must be a number."),
        "not_a_count": (
            f"「{zh}」须为非负整数（如 1200000 或 1,200,000）。",
            f"'{en}' must be a whole number of 0 or more (1200000 or 1,200,000).",
        ),
        "bad_date": (
            f"「{zh}」须为有效日期（YYYY-MM-DD）。",
            f"'{en}' must be a valid date (YYYY-MM-DD).",
        ),
    }
    message_zh, message_en = texts[code]
    return FieldError(code, message_zh, message_en)


def _check_field(spec: FieldSpec, value: str) -> FieldError | None:
    if not value:
        return _error("missing", spec) if spec.required else None
    if len(value) > spec.max_length:
        return _error("too_long", spec, str(len(value)))
    if spec.kind == "select" and value not in spec.choices:
        return _error("not_a_choice", spec)
    if spec.kind == "number" and not (_NUMBER.match(value) and math.isfinite(_number(value))):
        return _error("not_a_number", spec)
    if spec.kind == "count" and parse_count(value) is None:  # as the route and the CLI read it
        return _error("not_a_count", spec)
    if spec.kind == "date":
        try:
            date.fromisoformat(value)
        except ValueError:
            return _error("bad_date", spec)
    return None


def _number(value: str) -> float:
    return float(value.replace(",", ""))


def validate_values(doc_type: DocType, values: Mapping[str, object]) -> dict[str, str]:
    """The declared fields' values, stripped; raises FieldErrors listing every bad field."""
    clean: dict[str, str] = {}
    errors: dict[str, FieldError] = {}
    for spec in doc_type.fields:
        raw = values.get(spec.name)
        value = "" if raw is None else str(raw).strip()
        problem = _check_field(spec, value)
        if problem:
            errors[spec.name] = problem
        clean[spec.name] = value
    if errors:
        raise FieldErrors(errors)
    return clean


def unknown_fields(doc_type: DocType, names: Sequence[str]) -> list[str]:
    declared = {f.name for f in doc_type.fields}
    return [n for n in names if n not in declared]


def render(
    doc_type: DocType, values: Mapping[str, object], *, route: RouteDecision | None
) -> RenderedPrompt:
    """Validate the values and render system + user prompts; FieldErrors / TemplateProblem.
    `route`: the transfer route the facts lead to (app.drafting.context.decide_route), stated
    in the prompt of a type written for a transfer."""
    clean = validate_values(doc_type, values)
    context: dict[str, object] = {
        **clean,
        "required_sections": list(doc_type.required_sections),
        "statutes": list(doc_type.statutes),
        "numbering": doc_type.numbering,
        "route": route_context(route),
    }
    env = sandbox()
    try:
        system = env.from_string(doc_type.system_source).render(context).strip()
        user = env.from_string(doc_type.user_source).render(context).strip()
    except TemplateError as exc:  # SecurityError and UndefinedError are TemplateErrors
        raise TemplateProblem(f"{type(exc).__name__}: {exc}") from exc
    return RenderedPrompt(
        doc_type=doc_type.id,
        template_id=doc_type.id,
        template_version=doc_type.version,
        template_hash=doc_type.template_hash,
        system=system,
        user=user,
        values={k: v for k, v in clean.items() if v},
    )


def route_context(decision: RouteDecision | None) -> dict[str, object] | None:
    """The decided transfer route as template data; None when the type is not about a
    transfer or the facts are not all filled in."""
    if decision is None:
        return None
    return {
        "route": decision.route,
        "route_zh": decision.route_text.zh,
        "basis": decision.basis_text(),
        "explanation_zh": decision.explanation.zh,
        "changes_zh": [c.zh for c in decision.changes],
    }


# --- token budget ----------------------------------------------------------------------

MESSAGE_OVERHEAD_TOKENS = 8  # role markers per message
TEMPLATE_OVERHEAD_TOKENS = 32  # chat-template framing, incl. a default system prompt some add


def estimate_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """A deliberately high estimate when the server cannot count: 2 tokens per non-ASCII
    character (CJK text in English-first vocabularies), 1 per 3 ASCII characters, plus the
    chat template's framing."""
    total = TEMPLATE_OVERHEAD_TOKENS
    for message in messages:
        text = message.get("content", "")
        non_ascii = sum(1 for ch in text if ord(ch) > 127)
        total += 2 * non_ascii + math.ceil((len(text) - non_ascii) / 3) + MESSAGE_OVERHEAD_TOKENS
    return total


def count_prompt_tokens(rendered: RenderedPrompt, client: LLMClient | None = None) -> int:
    """The server's count (POST /tokenize) when it can give one, the local estimate otherwise."""
    messages = rendered.messages()
    counted = client.count_tokens(messages) if client is not None else None
    return counted if counted is not None else estimate_tokens(messages)


def check_context(prompt_tokens: int, max_tokens: int, context_limit: int | None) -> None:
    """Refuse (ContextTooLong, with the numbers) when prompt + max_tokens exceeds the context."""
    if context_limit is not None and prompt_tokens + max_tokens > context_limit:
        raise ContextTooLong(prompt_tokens, max_tokens, context_limit)
