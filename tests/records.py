"""A generation record for tests that write one (every field set, any overridden); a module of
its own, without pytest, so the concurrency test's writer processes import only what a
command does."""

from __future__ import annotations

from typing import Any

from audit.domain import GenerationRecord


def make_record(**overrides: Any) -> GenerationRecord:
    values: dict[str, Any] = {
        "user_name": "alice",
        "doc_type": "filing_guide",
        "template_id": "filing_guide",
        "template_version": "1.2",
        "template_hash": "ab" * 32,
        "field_values": {"company": "某某科技有限公司", "volume": "120000"},
        "system_prompt": "你是一名中国数据合规律师。",
        "user_prompt": "请撰写《数据出境安全评估申报表》填写指南。",
        "endpoint": "embedded",
        "model": "SmolLM2-135M-Instruct",
        "speculative": {"method": "ngram", "num_speculative_tokens": 8, "label": "n-gram K=8"},
        "params": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 256, "stop": ("。",)},
        "output_text": "一、申报主体\n依据《数据出境安全评估办法》第四条……",
        "status": "complete",
        "ttft_s": 0.125,
        "total_s": 2.5,
        "prompt_tokens": 88,
        "completion_tokens": 40,
        "tokens_per_s": 16.3,
        "draft_tokens": 64,
        "accepted_tokens": 21,
        "findings": [{"code": "numbering.gap", "severity": "error", "start": 3, "end": 5}],
    }
    values.update(overrides)
    return GenerationRecord(**values)
