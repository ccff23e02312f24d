"""The checks a clause must pass to be loaded, each a pure function returning the reason it is
refused (None: it passes). A refused clause is named in the message; the rest of its library
loads. `lexspec clauses check` prints them.

- its part is one of the outline's generated parts; its `when:` names known facts only;
- its placeholders are known (the form's fields and the template data), and it renders;
- every article it relies on (`cites`) is held in the statute texts with that 款 and 项, and
  is cited in its text; every citation in its text is one it declares;
- its rendered text passes the citation checks (app.validation.check: exists, in range, not
  repealed, content matches the article, not superseded on the document's date);
- every figure in its wording (10个工作日, 100万人, 3年) is found in one of its cited articles.

`stale_citations` is not a refusal (the clause may still be right): `lexspec clauses check`
flags a clause whose sign-off (`signed_off`, else `approved`) predates a change of a statute it
cites (a version in force after the sign-off whose article text differs from the one signed).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from jinja2 import TemplateError, meta

from app.outline.clauses import Cite, Clause
from app.outline.conditions import ConditionError, parse_condition
from app.validation import Catalogue

# a figure a lawyer must check against the article: a number with a unit of people or time
FIGURE = re.compile(r"\d+(?:\.\d+)?\s*(?:万人|人|个工作日|个月|年|日)")
# a firm clause's placeholder, `{{ company_name }}`, and any other template syntax
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
TEMPLATE_SYNTAX = re.compile(r"\{[{%#].*?(?:[}%#]\}|$)", re.DOTALL)


@dataclass(frozen=True)
class ClauseContext:
    """What a clause is checked against: the type's outline parts, facts, template data and
    its example values (rendered, so the citation checks read real text), and the statute
    catalogue its citations are resolved in."""

    parts: frozenset[str]  # keys of the outline's generated parts (id, else title)
    facts: tuple[str, ...]  # facts `when:` may test
    render_context: Mapping[str, object]  # template data for the type's example values
    doc_date: dt.date
    catalogue: Catalogue


def refusal(clause: Clause, ctx: ClauseContext) -> str | None:
    """Why `clause` cannot be used, or None."""
    if clause.part not in ctx.parts:
        known = ", ".join(sorted(ctx.parts)) or "none"
        return f"part {clause.part!r} is not a generated part of the outline (parts: {known})"
    try:
        parse_condition(clause.when, ctx.facts)
    except ConditionError as exc:
        return f"when: {exc}"
    rendered = render_clause(clause, ctx.render_context)
    if rendered.startswith("!"):
        return rendered[1:]
    return (
        _cites_held(clause.cites, ctx.doc_date)
        or _citations_declared(rendered, clause.cites, ctx.catalogue)
        or _citation_findings(rendered, ctx)
        or _figures_in_articles(clause.text, clause.cites, ctx.doc_date)
    )


def render_clause(clause: Clause, context: Mapping[str, object]) -> str:
    """The clause filled from the form; "!reason" when it cannot be. A shipped clause (the
    app's own file) is a template run in the sandbox; a firm clause (written by a user: a
    revision proposed, a file imported) is data, filled only at its placeholders."""
    if clause.origin == "firm":
        return fill_placeholders(clause.text, context)
    from app.prompts import sandbox

    env = sandbox()
    try:
        unknown = meta.find_undeclared_variables(env.parse(clause.text)) - set(context)
        if unknown:
            return f"!unknown placeholder(s) {', '.join(sorted(unknown))}"
        return env.from_string(clause.text).render(context).strip()
    except TemplateError as exc:  # syntax, sandbox and undefined errors
        return f"!the text does not render: {type(exc).__name__}: {exc}"


def fill_placeholders(text: str, context: Mapping[str, object]) -> str:
    """`text` with each `{{ field }}` replaced by the form's value, as text (a value is never
    read again); "!reason" for a placeholder the form does not have or for any other template
    syntax, which a firm clause may not hold: it would be shown as written, or was meant to
    run."""
    unknown = {n for n in PLACEHOLDER.findall(text) if not isinstance(context.get(n), str)}
    if unknown:
        return f"!unknown placeholder(s) {', '.join(sorted(unknown))}"
    if found := TEMPLATE_SYNTAX.search(PLACEHOLDER.sub("", text)):
        return (
            f"!template syntax {found.group()[:40]!r} is not a placeholder of the form "
            "(a firm clause is filled only at {{ field }} placeholders)"
        )
    return PLACEHOLDER.sub(lambda m: str(context[m.group(1)]), text).strip()


def _article_text(cite: Cite, day: dt.date) -> tuple[str | None, str | None]:
    """(the cited article's text or None, why it is missing)."""
    from app.validation.texts import load_texts

    store = load_texts()
    version = store.on(cite.statute, day) or store.latest(cite.statute)
    if version is None:
        return None, f"《{cite.statute}》 is not held in the statute texts"
    article = version.article(cite.article)
    if article is None:
        n = len(version.articles)
        return None, f"《{cite.statute}》 has {n} articles; there is no article {cite.article}"
    if not article.has_part(cite.paragraph, cite.item):
        where = f"paragraph {cite.paragraph or 1}" + (f", item {cite.item}" if cite.item else "")
        return None, f"《{cite.statute}》 article {cite.article} has no {where}"
    return article.text, None


def stale_citations(clause: Clause, today: dt.date) -> list[str]:
    """Each cited article that changed after the clause's sign-off and by `today`: the statute
    came into force after it, or the version in force today words the article otherwise (or no
    longer has it) than the version in force on the sign-off day."""
    from app.validation.texts import load_texts

    store, signed, found = load_texts(), clause.sign_off, []
    for cite in dict.fromkeys((c.statute, c.article) for c in clause.cites):
        statute, number = cite
        now = store.on(statute, today)
        then = store.on(statute, signed)
        if now is None or now is then:
            continue
        was = then.article(number) if then else None
        new = now.article(number)
        if was is not None and new is not None and was.text == new.text:
            continue
        found.append(
            f"{clause.id}: signed off {signed.isoformat()}, but 《{statute}》 article {number} "
            f"changed with the version in force from {now.in_force_from.isoformat()} "
            f"({now.version}); review the clause against it and re-sign (signed_off)"
        )
    return found


def _cites_held(cites: Iterable[Cite], day: dt.date) -> str | None:
    for cite in cites:
        _, problem = _article_text(cite, day)
        if problem:
            return problem
    return None


def _citations_declared(text: str, cites: tuple[Cite, ...], catalogue: Catalogue) -> str | None:
    from app.validation.citations import parse_citations

    found, _ = parse_citations(text, catalogue)
    cited = {(c.statute, c.article) for c in found if c.article is not None}
    declared = {(c.statute, c.article) for c in cites}
    if extra := cited - declared:
        statute, article = sorted(extra, key=str)[0]
        return f"cites 《{statute}》 article {article} without declaring it in cites"
    if missing := declared - cited:
        statute, article = sorted(missing, key=str)[0]
        return f"declares 《{statute}》 article {article} but its text does not cite it"
    return None


def _citation_findings(text: str, ctx: ClauseContext) -> str | None:
    from app.validation import check

    for f in check(text, catalogue=ctx.catalogue, doc_date=ctx.doc_date).findings:
        if f.code.startswith("citation."):
            return f"{f.code}: {f.message_en}"
    return None


def _figures_in_articles(source: str, cites: Iterable[Cite], day: dt.date) -> str | None:
    texts = [_article_text(c, day)[0] or "" for c in cites]
    for m in FIGURE.finditer(source):
        figure = re.sub(r"\s+", "", m.group())
        if not any(figure in t for t in texts):
            return f"the figure {figure!r} is not in any of its cited articles"
    return None
