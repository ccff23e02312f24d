#!/usr/bin/env bash
# Render page 1 of a sample DOCX export to docs/images/docx-page1.png (a docs step, not a test).
#   scripts/render_docx_preview.sh [OUT_PNG]
# With --official, render page PAGE (default 1, the cover) of the example 数据出境风险自评估报告
# in the official style (the filing templates' format), drafted offline from its vetted clauses:
#   scripts/render_docx_preview.sh --official [OUT_PNG] [PAGE]
#
# Needs LibreOffice Writer, poppler-utils and CJK fonts, e.g. on Debian:
#   apt-get install libreoffice-writer-nogui fonts-noto-cjk poppler-utils
# Word on Windows has 宋体/仿宋/黑体/楷体; a Linux box usually has only Noto CJK, so a
# private fontconfig file maps the Chinese font names onto Noto Serif / Sans CJK SC.
# The preview therefore shows the layout (sizes, spacing, header, footer), not the exact
# 仿宋 / 楷体 glyph shapes.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
OFFICIAL=""
if [ "${1:-}" = "--official" ]; then
    OFFICIAL=1
    shift
fi
OUT_PNG="${1:-docs/images/docx-page1.png}"
PAGE="${2:-1}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

for tool in soffice pdftoppm; do
    command -v "$tool" >/dev/null || { echo "缺少 / missing: $tool" >&2; exit 1; }
done

cat >"$WORK/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <alias binding="same"><family>宋体</family><prefer><family>Noto Serif CJK SC</family></prefer></alias>
  <alias binding="same"><family>仿宋</family><prefer><family>Noto Serif CJK SC</family></prefer></alias>
  <alias binding="same"><family>楷体</family><prefer><family>Noto Serif CJK SC</family></prefer></alias>
  <alias binding="same"><family>黑体</family><prefer><family>Noto Sans CJK SC</family></prefer></alias>
</fontconfig>
EOF
export FONTCONFIG_FILE="$WORK/fonts.conf"

cat >"$WORK/sample.md" <<'EOF'
# 数据出境安全评估申报表填写指南

【适用情形】
一、需要申报安全评估的情形
（一）关键信息基础设施运营者向境外提供个人信息或者重要数据。
（二）其他数据处理者向境外提供重要数据，或者自当年1月1日起累计向境外提供100万人以上个人信息（不含敏感个人信息）或者1万人以上敏感个人信息。
依据：《促进和规范数据跨境流动规定》第七条；订立标准合同的，另见《个人信息出境标准合同办法》第十五条。
二、无需申报的情形
1. 为订立、履行个人作为一方当事人的合同，确需向境外提供个人信息的；
2. 按照依法制定的劳动规章制度和依法签订的集体合同实施跨境人力资源管理，确需向境外提供员工个人信息的。

【材料清单】
一、申报材料
（一）申报书；
（二）数据出境风险自评估报告；
（三）数据处理者与境外接收方拟订立的法律文件；
（四）安全评估工作需要的其他材料。
上述材料依据《数据出境安全评估办法》第六条准备。**申报书须加盖公章。**

【常见错误】
一、引用错误
（一）引用已废止的法律，例如依据《合同法》第五十二条主张合同无效，应改为《中华人民共和国民法典》的相关条款。
（二）条文序号超出范围，例如引用《个人信息出境标准合同办法》第十五条。
EOF

if [ -n "$OFFICIAL" ]; then
    # the example report, every generated part its vetted clause (no model, no server)
    LEXSPEC_LLM_WRITING=assemble LEXSPEC_LLM_BASE_URL=http://127.0.0.1:9/v1 LEXSPEC_ENDPOINTS='{}' \
        "$PYTHON" -m app.cli draft --type self-assessment-report --example --no-audit \
        --out "$WORK/sample.md" >/dev/null 2>&1
    "$PYTHON" -m app.cli export "$WORK/sample.md" --out "$WORK/sample.docx" \
        --doc-type self-assessment-report --style official --date 2025-03-15 \
        --client "上海明川跨境电子商务有限公司" --no-appendix
else
    FINDINGS_FLAG=()
    if "$PYTHON" -c "from app.validation import check" 2>/dev/null; then
        FINDINGS_FLAG=(--findings)
    fi
    "$PYTHON" -m app.cli export "$WORK/sample.md" --out "$WORK/sample.docx" "${FINDINGS_FLAG[@]}" \
        --matter "LX-2026-0415" --client "华东某医疗科技有限公司" --author "LexSpec"
fi

# Show Word comments in the right margin of the PDF, as Word prints "markup".
soffice --headless -env:UserInstallation="file://$WORK/profile" \
    --convert-to 'pdf:writer_pdf_Export:{"ExportNotesInMargin":{"type":"boolean","value":"true"}}' \
    --outdir "$WORK" "$WORK/sample.docx" >/dev/null
pdftoppm -png -r 80 -f "$PAGE" -l "$PAGE" -singlefile "$WORK/sample.pdf" "$WORK/page1"
mkdir -p "$(dirname "$OUT_PNG")"
cp "$WORK/page1.png" "$OUT_PNG"
echo "wrote $OUT_PNG"
