"""The route rules (app/route/rules.yaml) loaded into frozen dataclasses and checked at load.

Every basis must name a catalogued statute and an article within its count; every threshold's
cross-check quote is checked against the held statute text by the tests (test_route_rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, cast

from app import yamldata
from app.domain import Bilingual, BilingualError

Route = Literal["security_assessment", "standard_contract_or_certification", "exempt"]
ROUTES: tuple[Route, ...] = ("security_assessment", "standard_contract_or_certification", "exempt")
Exemption = Literal["contract", "hr", "emergency", "foreign-collected", "trade", "ftz"]
EXEMPTIONS: tuple[Exemption, ...] = (
    "contract",
    "hr",
    "emergency",
    "foreign-collected",
    "trade",
    "ftz",
)
RULES_FILE = Path(__file__).resolve().parent / "rules.yaml"


class RulesError(BilingualError, ValueError):
    """The rules file is inconsistent (a basis outside the catalogue, an unknown condition)."""


@dataclass(frozen=True)
class Basis:
    """A statute article a rule rests on; `text_checked` is False where its text is not held."""

    statute: str
    article: int
    item: int | None = None
    text_checked: bool = True

    def label(self) -> str:
        from app.validation.numerals import int_to_chinese

        item = f"第{int_to_chinese(self.item)}项" if self.item else ""
        return f"《{self.statute}》第{int_to_chinese(self.article)}条{item}"

    def to_dict(self) -> dict[str, object]:
        return {"statute": self.statute, "article": self.article, "item": self.item}


@dataclass(frozen=True)
class Threshold:
    name: str
    value: int
    edge: str  # 以上 (>=) ; the only edge the rules use for a lower bound
    counts: Literal["individuals", "sensitive"]
    source: Basis
    text: Bilingual
    cross_check: tuple[str, int, str]  # (statute, article, verbatim quote)
    watch: Bilingual  # the threshold as the watch note names it (1万人以上敏感个人信息)


@dataclass(frozen=True)
class Rule:
    id: str
    when: tuple[str, ...]
    route: Route
    basis: tuple[Basis, ...]
    text: Bilingual
    counts: bool = False  # decides on the counted individuals: the exempt-part note applies
    route_text: Bilingual | None = None  # how this rule's route reads, where not the route's own


@dataclass(frozen=True)
class Prevails:
    """The paragraph by which the exemptions prevail (规定第七条、第八条第二款) and how it was read."""

    statute: str
    articles: tuple[int, ...]
    paragraph: int
    note: Bilingual

    def quote(self) -> Bilingual:
        """《statute》第七条第二款、第八条第二款：its text from the statute-text store."""
        from app.validation.numerals import int_to_chinese
        from app.validation.texts import load_texts

        version = load_texts().latest(self.statute)
        texts = {
            version.article(n).part(self.paragraph)  # type: ignore[union-attr]
            for n in self.articles
            if version is not None and version.article(n) is not None
        }
        where = "、".join(
            f"第{int_to_chinese(n)}条第{int_to_chinese(self.paragraph)}款" for n in self.articles
        )
        text = "；".join(sorted(texts))  # one text where the paragraphs read alike
        en = ", ".join(f"article {n}({self.paragraph})" for n in self.articles)
        return Bilingual(zh=f"《{self.statute}》{where}：{text}", en=f"{self.statute} {en}: {text}")


@dataclass(frozen=True)
class Rules:
    regulation: str
    counting: tuple[str, int, str]
    thresholds: dict[str, Threshold]
    exemptions: dict[str, tuple[Basis, Bilingual]]
    rules: tuple[Rule, ...]
    routes: dict[str, Bilingual]
    scope_note: Bilingual
    changes: dict[str, Bilingual]
    # known / unknown: the note before a counting rule; individuals / sensitive: how the exempt
    # part names each count ({n})
    exempt_part: dict[str, Bilingual]
    watch: Bilingual  # a count near a threshold: {what}, {count}, {gap}, {threshold}, {route}
    watch_what: dict[str, Bilingual]  # individuals / sensitive: what {what} names
    prevails: Prevails
    watch_share: float  # from which share of a threshold a count is watched


def _problem(detail: str) -> RulesError:
    return RulesError(f"路径规则文件有误：{detail}", f"The route rules file is wrong: {detail}")


def _basis(raw: dict[str, Any]) -> Basis:
    return Basis(
        statute=str(raw["statute"]),
        article=int(raw["article"]),
        item=int(raw["item"]) if raw.get("item") is not None else None,
        text_checked=bool(raw.get("text_checked", True)),
    )


def _bilingual(raw: dict[str, Any], zh: str = "zh", en: str = "en") -> Bilingual:
    return Bilingual(zh=str(raw[zh]), en=str(raw[en]))


def _threshold(name: str, raw: dict[str, Any]) -> Threshold:
    check = raw["cross_check"]
    if raw["edge"] != "以上" or raw["counts"] not in ("individuals", "sensitive"):
        raise _problem(f"{name}: edge must be 以上 and counts individuals|sensitive")
    return Threshold(
        name=name,
        value=int(raw["value"]),
        edge=str(raw["edge"]),
        counts=raw["counts"],
        source=_basis(raw["source"]),
        text=_bilingual(raw, "text_zh", "text_en"),
        cross_check=(str(check["statute"]), int(check["article"]), str(check["quote"])),
        watch=_bilingual(raw, "watch_zh", "watch_en"),
    )


def _rule(raw: dict[str, Any]) -> Rule:
    if raw["route"] not in ROUTES:
        raise _problem(f"rule {raw.get('id')}: unknown route {raw['route']}")
    return Rule(
        id=str(raw["id"]),
        when=tuple(str(c) for c in raw.get("when") or ()),
        route=cast(Route, raw["route"]),
        basis=tuple(_basis(b) for b in raw["basis"]),
        text=_bilingual(raw),
        counts=bool(raw.get("counts", False)),
        route_text=_bilingual(raw["route_text"]) if raw.get("route_text") else None,
    )


def parse_rules(data: dict[str, Any]) -> Rules:
    """Rules from the YAML mapping; RulesError on a missing key or a bad value."""
    try:
        counting = data["counting"]
        return Rules(
            regulation=str(data["regulation"]),
            counting=(str(counting["statute"]), int(counting["article"]), str(counting["quote"])),
            thresholds={k: _threshold(k, v) for k, v in data["thresholds"].items()},
            exemptions={
                k: (_basis(v["source"]), _bilingual(v)) for k, v in data["exemptions"].items()
            },
            rules=tuple(_rule(r) for r in data["rules"]),
            routes={k: _bilingual(v) for k, v in data["routes"].items()},
            scope_note=_bilingual(data["scope_note"]),
            changes={k: _bilingual(v) for k, v in data["changes"].items()},
            exempt_part={k: _bilingual(v) for k, v in data["exempt_part"].items()},
            watch=_bilingual(data["watch"]),
            watch_share=float(data["watch"]["share"]),
            watch_what={k: _bilingual(data["watch"][k]) for k in ("individuals", "sensitive")},
            prevails=Prevails(
                statute=str(data["prevails"]["statute"]),
                articles=tuple(int(n) for n in data["prevails"]["articles"]),
                paragraph=int(data["prevails"]["paragraph"]),
                note=_bilingual(data["prevails"]["note"]),
            ),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RulesError):
            raise
        raise _problem(f"{type(exc).__name__}: {exc}") from exc


def resolve_basis(rules: Rules, catalogue: Any) -> Rules:
    """Check every basis against the statute catalogue (name and article count)."""
    cited = [b for r in rules.rules for b in r.basis]
    cited += [t.source for t in rules.thresholds.values()]
    cited += [basis for basis, _ in rules.exemptions.values()]
    for basis in cited:
        statute = catalogue.resolve(basis.statute)
        if statute is None or statute.name != basis.statute:
            raise _problem(f"{basis.statute} is not a catalogued statute name")
        if statute.articles is not None and not 1 <= basis.article <= statute.articles:
            raise _problem(f"{basis.label()} is beyond the statute's {statute.articles} articles")
    if set(rules.exemptions) != set(EXEMPTIONS) or set(rules.routes) != set(ROUTES):
        raise _problem("exemptions and routes must be exactly those the engine knows")
    if set(rules.exempt_part) != {"known", "unknown", "individuals", "sensitive"}:
        raise _problem("exempt_part needs known, unknown, individuals and sensitive")
    if not 0 < rules.watch_share < 1:
        raise _problem("watch.share lies between 0 and 1")
    return rules


@lru_cache(maxsize=1)
def load_rules(path: str = str(RULES_FILE)) -> Rules:
    """The rules, parsed and resolved against the built-in catalogue (cached)."""
    from app.validation.catalogue import load_catalogue

    data = yamldata.load(Path(path).read_text(encoding="utf-8"))
    return resolve_basis(parse_rules(data), load_catalogue(None))
