"""One builder of an export's metadata (revision_export.header_meta): the Draft page, History
and `lexspec export` take the client, matter and official cover from the same header."""

from __future__ import annotations

import datetime as dt

from app.drafting.context import ExportHeader
from app.drafting.revision_export import header_meta


def test_the_header_fills_the_client_matter_and_cover() -> None:
    header = ExportHeader(
        client="甲公司", matter_ref="LX-7", cover_label="数据处理者名称", subtitle="（出境版）"
    )
    meta = header_meta(
        header,
        title="数据出境安全评估申报书",
        doc_date=dt.date(2026, 3, 1),
        author="张律师",
        generation_id=12,
        template_hash="abc",
    )
    assert (meta.client, meta.matter_ref) == ("甲公司", "LX-7")
    assert (meta.cover_label, meta.subtitle) == ("数据处理者名称", "（出境版）")
    assert (meta.title, meta.doc_date, meta.author) == (
        "数据出境安全评估申报书",
        dt.date(2026, 3, 1),
        "张律师",
    )
    assert (meta.generation_id, meta.template_hash, meta.created) == (12, "abc", None)


def test_an_empty_header_leaves_the_cover_blank() -> None:
    meta = header_meta(ExportHeader(), title="", doc_date=None)
    assert (meta.client, meta.matter_ref, meta.cover_label, meta.subtitle, meta.author) == (
        "",
        "",
        "",
        "",
        "",
    )
