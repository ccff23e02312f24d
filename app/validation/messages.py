"""Bilingual finding messages and default severities, kept in one place."""

from __future__ import annotations

from app.domain import Finding, FindingCode, Severity

# code -> (severity, 中文 template, English template); templates take keyword fields.
# The codes themselves are declared in app/domain.FindingCode.
MESSAGES: dict[FindingCode, tuple[Severity, str, str]] = {
    "citation.unknown_statute": (
        "warning",
        "法规目录中没有《{name}》，请核实名称",
        "《{name}》 is not in the statute catalogue; check the title",
    ),
    "citation.name_variant": (
        "warning",
        "《{name}》疑为《{canonical}》的误写",
        "《{name}》 looks like a misspelling of 《{canonical}》",
    ),
    "citation.article_out_of_range": (
        "error",
        "《{statute}》共{articles}条，不存在第{article}条",
        "《{statute}》 has {articles} articles; there is no article {article}",
    ),
    "citation.repealed": (
        "error",
        "《{statute}》已于{repealed}废止，由《{successor}》取代",
        "《{statute}》 was repealed on {repealed}; it was replaced by 《{successor}》",
    ),
    "citation.content_mismatch": (
        "warning",
        "本句内容与《{statute}》{cited}不符，{better}更相符：{cited}“{cited_open}”；{better}“{better_open}”",
        "This sentence does not match 《{statute}》 {cited_en}; {better_en} fits better: "
        "{cited_en} “{cited_open}”; {better_en} “{better_open}”",
    ),
    "citation.renumbered": (
        "warning",
        "《{statute}》{cited}是{old_version}文本的条号，该条自{changed}起为{now}",
        "《{statute}》 {cited_en} is the numbering of the {old_version} text; since {changed} "
        "that article is {now_en}",
    ),
    "citation.not_in_force": (
        "warning",
        "{when}时{what}尚未施行（自{effective}起施行）",
        "On {when_en}, {what} was not yet in force (in force from {effective})",
    ),
    "citation.superseded": (
        "warning",
        "本句援引的是《{earlier}》{earlier_at}的规则，自{since}起适用《{prevailing}》{prevailing_at}：{change}",
        "This sentence relies on the rule of 《{earlier}》 {earlier_at_en}; since {since} "
        "《{prevailing}》 {prevailing_at_en} applies instead: {change_en}",
    ),
    "citation.part_out_of_range": (
        "warning",
        "《{statute}》{article}（{version}文本）{has}，不存在{part}",
        "《{statute}》 {article_en} ({version} text) {has_en}; there is no {part_en}",
    ),
    "citation.called_in_force": (
        "warning",
        "{when}时{what}尚未施行（自{effective}起施行），不宜称为“{word}”",
        "On {when_en}, {what} was not yet in force (in force from "
        "{effective}); it cannot be called “{word}”",
    ),
    "citation.figure_mismatch": (
        "error",
        "本句所述“{found}”与《{statute}》{article}不符：该条此处为“{says}”",
        "“{found}” does not match 《{statute}》 {article_en}, which says “{says}” here",
    ),
    "citation.actor_mismatch": (
        "error",
        "本句所述主体“{found}”与《{statute}》{article}不符：该条此处为“{says}”",
        "The body “{found}” does not match 《{statute}》 {article_en}, which names “{says}” here",
    ),
    "citation.condition_mismatch": (
        "warning",
        "本句所述条件“{found}”与《{statute}》{article}不符：该条此处为“{says}”",
        "The condition “{found}” does not match 《{statute}》 {article_en}, which says “{says}” here",
    ),
    "citation.negates_duty": (
        "error",
        "本句称“{found}”，与《{statute}》{article}规定的义务相反（该条：“{says}”）",
        "“{found}” contradicts the duty of 《{statute}》 {article_en} (it says: “{says}”)",
    ),
    "citation.rule_elsewhere": (
        "warning",
        "本句所述规则见于《{other}》{other_article}（“{other_open}”），而非《{statute}》{cited}",
        "This sentence states the rule of 《{other}》 {other_article_en} (“{other_open}”), not "
        "of 《{statute}》 {cited_en}",
    ),
    "citation.not_a_provision": (
        "warning",
        "《{name}》是{kind}，不是法律、法规或规章，“{part}”不是法律条文；请援引其所依据的法规条文",
        "《{name}》 is {kind_en}, not a law or regulation: “{part}” is not a legal provision; "
        "cite the provision it relies on",
    ),
    "numbering.gap": (
        "error",
        "编号不连续：应为“{expected}”，实为“{found}”",
        "Numbering gap: expected {expected}, found {found}",
    ),
    "numbering.duplicate": (
        "error",
        "编号重复：“{found}”已出现过",
        "Duplicate number: {found} was already used",
    ),
    "numbering.out_of_order": (
        "error",
        "编号顺序颠倒：“{found}”出现在“{previous}”之后",
        "Numbers out of order: {found} comes after {previous}",
    ),
    "numbering.mixed_style": (
        "warning",
        "同级编号格式不一致：“{found}”与“{style}”混用",
        "Mixed numbering style at one level: {found} alongside {style}",
    ),
    "structure.missing_section": (
        "error",
        "缺少必备章节{section}",
        "Required section {section} is missing",
    ),
    "structure.section_order": (
        "warning",
        "章节{section}位置不对，应依次为{order}",
        "Section {section} is out of order; the order is {order}",
    ),
    "facts.route_mismatch": (
        "error",
        "草稿此处的出境路径结论与表单事实不符：依表单事实应为{route}（依据{basis}）",
        "This conclusion on the transfer route contradicts the form's facts; their route: "
        "{route_en} ({basis})",
    ),
    "facts.number_mismatch": (
        "warning",
        "草稿所写{what}“{found}”与表单不符（表单：{expected}）",
        "The draft's {what_en} “{found}” contradicts the form ({expected})",
    ),
    "facts.count_flips_route": (
        "error",
        "草稿所写{what}“{found}”与表单不符（表单：{expected}），按此数字出境路径将变为{route}，而依表单事实应为{form_route}",
        "The draft's {what_en} “{found}” contradicts the form ({expected}); that figure would "
        "lead to {route_en}, the form's facts to {form_route_en}",
    ),
    "prose.instruction_echo": (
        "error",
        "模型复述了本部分的写作要求（“{echo}”），而不是写正文",
        "The model repeated the part's instruction (“{echo}”) instead of writing it",
    ),
    "prose.dangling_lead_in": (
        "error",
        "本部分以引导语结尾，后面没有内容（“{lead}”）",
        "The part ends on a lead-in with nothing after it (“{lead}”)",
    ),
    "prose.garble": (
        "error",
        "本部分有乱码：中文中夹杂外文字母或生僻字（“{found}”）",
        "The part is garbled: letters of another script or a rare character inside Chinese "
        "(“{found}”)",
    ),
    "prose.repetition": (
        "error",
        "本部分重复了同一内容（“{found}”）",
        "The part repeats itself (“{found}”)",
    ),
    "prose.wrong_fact": (
        "error",
        "本部分写了表单中没有的人数或日期（“{found}”）",
        "The part states a count or date that is not the form's (“{found}”)",
    ),
    "prose.cut_off": (
        "error",
        "本部分写到篇幅上限时停在句中（“{tail}”）",
        "The part stopped mid-sentence at its token budget (“{tail}”)",
    ),
    "prose.outcome_promise": (
        "error",
        "本部分承诺或保证了办理结果（“{found}”），法律意见不对结果作出承诺",
        "The part promises an outcome (“{found}”); legal advice promises no outcome",
    ),
    "prose.unauthorised_disclosure": (
        "error",
        "本部分允许一方不经对方同意向第三方提供数据（“{found}”），与《个人信息保护法》"
        "第二十一条、第二十三条要求的约定和同意相悖",
        "The part lets a party give data to third parties without the other's consent "
        "(“{found}”), against the agreement and consent PIPL articles 21 and 23 require",
    ),
    "prose.lost_term": (
        "error",
        "改写删去了审定条款中的引用或法律术语（“{term}”）",
        "The rewrite dropped a citation or legal term of the vetted clause (“{term}”)",
    ),
    "prose.unfaithful": (
        "error",
        "改写偏离审定条款过远（与条款的相似度 {score}%，至少应为 {min}%）",
        "The rewrite strays too far from the vetted clause (similarity {score}%, at least {min}%)",
    ),
    "prose.form_field": (
        "error",
        "本部分把表单栏目照抄成“栏目：内容”，而不是写成条款（“{found}”）",
        "The part restates a form field as “label: value” instead of writing a clause (“{found}”)",
    ),
    "prose.unfinished": (
        "error",
        "本部分没有以完整的句子结束（“{tail}”）",
        "The part does not end on a complete sentence (“{tail}”)",
    ),
    "prose.ellipsis": (
        "error",
        "本部分含省略号，内容不完整",
        "The part contains an ellipsis: its content is incomplete",
    ),
    "prose.stray_chars": (
        "error",
        "本部分含法律文书不用的字符（“{found}”）",
        "The part contains characters legal prose does not use (“{found}”)",
    ),
    "contract.item_deleted": (
        "error",
        "标准合同{label}在本文中缺失（应在此处之后）：“{official}”",
        "Standard contract {label_en} is missing (it belongs after this): “{official}”",
    ),
    "contract.obligation_weakened": (
        "error",
        "标准合同{label}的义务被改弱：“{found}”，标准文本为“{official}”",
        "The duty of standard contract {label_en} is weakened: “{found}”; the official text "
        "says “{official}”",
    ),
    "contract.period_changed": (
        "error",
        "标准合同{label}的期限被改动：“{found}”，标准文本为“{official}”",
        "The period in standard contract {label_en} is changed: “{found}”; the official text "
        "says “{official}”",
    ),
    "contract.condition_dropped": (
        "error",
        "标准合同{label}的内容被删去：“{dropped}”",
        "Words of standard contract {label_en} are dropped: “{dropped}”",
    ),
    "contract.wording_changed": (
        "warning",
        "标准合同{label}的措辞被改动：标准文本为“{official}”",
        "The wording of standard contract {label_en} is changed; the official text says "
        "“{official}”",
    ),
    "contract.conflicting_term": (
        "error",
        "约定“{found}”与标准合同{label}相冲突（{why}）：标准文本为“{official}”；"
        "《个人信息出境标准合同办法》第六条，其他条款不得与标准合同相冲突",
        "The term “{found}” conflicts with standard contract {label_en} ({why_en}): the "
        "official text says “{official}”; other terms must not conflict with the standard "
        "contract (Standard Contract Measures art. 6)",
    ),
    "contract.appendix_mismatch": (
        "warning",
        "附录一{label}所填“{found}”与本文其他部分（“{other}”）不一致",
        "Appendix 1 {label_en} reads “{found}”, which contradicts “{other}” elsewhere in the "
        "document",
    ),
}


def finding(
    code: FindingCode, start: int, end: int, suggestion: str = "", **fields: object
) -> Finding:
    """A Finding with the code's severity and both messages filled in."""
    severity, zh, en = MESSAGES[code]
    return Finding(code, severity, start, end, zh.format(**fields), en.format(**fields), suggestion)
