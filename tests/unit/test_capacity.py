"""Capacity planner against hand calculations for Qwen3-8B + Qwen3-0.6B."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from app.ops.capacity import GIB, RUNTIME_RESERVE_GIB, CapacityError, load_spec, plan

TOK = Path(__file__).resolve().parent.parent / "fixtures" / "tokenizers"


def test_qwen3_8b_kv_per_token_by_hand() -> None:
    spec = load_spec(TOK / "qwen3-8b")
    assert (spec.layers, spec.kv_heads, spec.head_dim, spec.max_positions) == (36, 8, 128, 40960)
    assert spec.kv_bytes_per_token(2) == 2 * 36 * 8 * 128 * 2 == 147_456
    assert spec.params == pytest.approx(8.19e9, rel=0.01)  # Qwen3-8B: 8.2B parameters
    draft = load_spec(TOK / "qwen3-0.6b")
    assert draft.kv_bytes_per_token(2) == 2 * 28 * 8 * 128 * 2 == 114_688
    assert draft.params == pytest.approx(0.6e9, rel=0.02)


def test_plan_on_24_gib() -> None:
    t, d = load_spec(TOK / "qwen3-8b"), load_spec(TOK / "qwen3-0.6b")
    p = plan(t, d, gpu_mem_gb=24, max_model_len=8192, dtype="bfloat16")
    assert p.target_weights == t.params * 2
    assert p.kv_per_token == 147_456 + 114_688
    budget = 24 * GIB * 0.9 - t.params * 2 - d.params * 2 - RUNTIME_RESERVE_GIB * GIB
    assert p.kv_budget == int(budget)
    assert p.kv_tokens == int(budget) // 262_144
    assert p.max_num_seqs == p.kv_tokens // 8192
    assert p.max_num_seqs >= 1 and not p.warnings
    cmd = shlex.split(p.vllm_command("Qwen/Qwen3-8B", "Qwen/Qwen3-0.6B", k=5))
    assert cmd[:3] == ["vllm", "serve", "Qwen/Qwen3-8B"]
    spec = json.loads(cmd[cmd.index("--speculative-config") + 1])
    assert spec == {
        "method": "draft_model",
        "model": "Qwen/Qwen3-0.6B",
        "num_speculative_tokens": 5,
    }
    assert cmd[cmd.index("--max-num-seqs") + 1] == str(p.max_num_seqs)
    assert cmd[cmd.index("--max-model-len") + 1] == "8192"


def test_plan_warns_when_nothing_fits_or_too_long() -> None:
    t = load_spec(TOK / "qwen3-8b")
    p = plan(t, load_spec(TOK / "qwen3-0.6b"), gpu_mem_gb=16, max_model_len=65536)
    assert p.max_num_seqs == 0
    assert len(p.warnings) == 2  # beyond 40,960 positions, and nothing fits
    mixed = plan(t, load_spec(TOK / "phi-3-mini"), gpu_mem_gb=80)
    assert any("vocab" in w for w in mixed.warnings)


def test_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(CapacityError):
        load_spec(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(CapacityError, match="field"):
        load_spec(tmp_path)
    with pytest.raises(CapacityError, match="dtype"):
        plan(load_spec(TOK / "qwen3-8b"), None, dtype="float7")


def test_params_from_safetensors_index(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((TOK / "qwen3-8b" / "config.json").read_text())
    index = {"metadata": {"total_size": 16_381_470_720}, "weight_map": {}}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    assert load_spec(tmp_path).params == 16_381_470_720 // 2  # bf16: 2 bytes per parameter
