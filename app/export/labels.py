"""Every piece of text the DOCX export writes itself (Chinese first, then English)."""

from __future__ import annotations

DRAFT_MARK = "草稿 / DRAFT — 仅供审阅"
MATTER = "案号 / Matter"
CLIENT = "客户 / Client"
# footer: 第 {PAGE} 页，共 {NUMPAGES} 页 / Page {PAGE} of {NUMPAGES}
FOOTER_PARTS = ("第 ", "PAGE", " 页，共 ", "NUMPAGES", " 页　Page ", "PAGE", " of ", "NUMPAGES")

COMMENT_AUTHOR = "LexSpec 校验 / Check"
COMMENT_INITIALS = "LS"
SUGGESTION = "建议 / Suggestion："
# a reviewed document's comments (app/review/annotate.py): what a comment's first line says when
# the finding is not on the document's date, or its words cannot carry a comment
OUTDATED_NOTE = "今日已过时（成文时正确） / Outdated today (right when written)"
PLACE_NOTE = {
    "header": "位于页眉 / In the header",
    "footer": "位于页脚 / In the footer",
    "label": "位于自动编号 / In Word's automatic numbering",
}
TRACKED_AUTHOR = "LexSpec 审查 / Review"
SEVERITY = {
    "error": "错误 / Error",
    "warning": "警告 / Warning",
    "info": "提示 / Info",
}

APPENDIX_TITLE = "附录　校验结果 / Appendix: Validation Findings"
APPENDIX_INTRO = (
    "下表列出导出时的自动校验结果（编号与引用检查），供审阅参考，不构成法律意见。"
    "The table lists the automatic checks run at export (numbering and citations); "
    "it is a review aid, not legal advice."
)
APPENDIX_HEADERS = (
    "严重程度\nSeverity",
    "代码\nCode",
    "位置 / 原文\nLocation / Excerpt",
    "说明\nMessage",
    "建议\nSuggestion",
)
CITED_TITLE = "附录　引用条文 / Appendix: Cited Articles"
CITED_INTRO = (
    "下列为草稿所引各条的全文（导出时施行的版本），录自所注来源，供核对，以官方公布文本为准。"
    "The full text of each article the draft cites (the version in force at export), from the "
    "source noted under it; for checking only, the officially published text prevails."
)
CITED_SOURCE = "来源 / Source："
LOCATION = "第 {line} 行 第 {column} 字 / line {line}, col {column}"

CORE_CATEGORY = "法律文书草稿 / Legal draft"
CLIENT_CATEGORY = "法律文书 / Legal document"
# the client copy's opening lines (Chinese only: the document is in Chinese)
TO = "致"
MATTER_ZH = "案号"
DATE = "日期"
# a version's file name: client — document — date, then the kind of copy
FILE_SEPARATOR = " — "
REVIEW_COPY = "（审阅稿）"  # with the checks' comments and appendix
TRACKED_COPY = "（修订痕迹）"
REVISION = "第{n}稿"
CORE_STATUS = "草稿 / Draft"
DEFAULT_AUTHOR = "LexSpec"
