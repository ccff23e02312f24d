"""GPU capacity planner for a target + draft pair on vLLM, from each model's config.json.

KV bytes per token = 2 (K and V) × layers × kv_heads × head_dim × bytes per element; both the
target and the draft keep a KV cache for every sequence, so their per-token costs add up.
Memory is counted in GiB (a "24 GB" card has 24 GiB).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.i18n import cli_text

GIB = 1024**3
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "fp8": 1, "float8": 1, "int8": 1}
# activations, CUDA graphs and the sampler's buffers; vLLM profiles this at start-up,
# a flat reserve keeps the plan on the safe side
RUNTIME_RESERVE_GIB = 1.5


class CapacityError(ValueError):
    """A config.json is missing or lacks the fields the plan needs."""


@dataclass(frozen=True)
class ModelSpec:
    """The parts of a model's config that decide its memory use."""

    name: str
    layers: int
    kv_heads: int
    head_dim: int
    hidden_size: int
    vocab_size: int
    max_positions: int | None
    params: int  # parameter count (from the safetensors index, or estimated from the config)
    torch_dtype: str

    def kv_bytes_per_token(self, dtype_bytes: int) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes

    def weight_bytes(self, dtype_bytes: int) -> int:
        return self.params * dtype_bytes


def estimate_params(cfg: dict[str, Any]) -> int:
    """Dense decoder parameter count: embeddings (+ untied head), attention, gated MLP, norms."""
    hidden = int(cfg["hidden_size"])
    layers = int(cfg["num_hidden_layers"])
    heads = int(cfg["num_attention_heads"])
    kv_heads = int(cfg.get("num_key_value_heads") or heads)
    head_dim = int(cfg.get("head_dim") or hidden // heads)
    inter = int(cfg.get("intermediate_size") or 4 * hidden)
    vocab = int(cfg["vocab_size"])
    attn = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
    mlp = 3 * hidden * inter
    embed = vocab * hidden * (1 if cfg.get("tie_word_embeddings") else 2)
    return layers * (attn + mlp + 2 * hidden) + embed + hidden


def _params_from_index(model_dir: Path, dtype_bytes: int) -> int | None:
    index = model_dir / "model.safetensors.index.json"
    if not index.is_file():
        return None
    total = json.loads(index.read_text()).get("metadata", {}).get("total_size")
    return int(total) // dtype_bytes if total else None


def load_spec(path: Path) -> ModelSpec:
    """Read a model directory's config.json (or a config.json path itself)."""
    cfg_path = path / "config.json" if path.is_dir() else path
    if not cfg_path.is_file():
        raise CapacityError(cli_text("cli.ops.capacity.no_config", path=cfg_path))
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        heads = int(cfg["num_attention_heads"])
        hidden = int(cfg["hidden_size"])
        dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
        params = _params_from_index(cfg_path.parent, DTYPE_BYTES.get(dtype, 2))
        return ModelSpec(
            name=cfg_path.parent.name,
            layers=int(cfg["num_hidden_layers"]),
            kv_heads=int(cfg.get("num_key_value_heads") or heads),
            head_dim=int(cfg.get("head_dim") or hidden // heads),
            hidden_size=hidden,
            vocab_size=int(cfg["vocab_size"]),
            max_positions=cfg.get("max_position_embeddings"),
            params=params or estimate_params(cfg),
            torch_dtype=dtype,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CapacityError(
            cli_text("cli.ops.capacity.config_field", field=exc, path=cfg_path)
        ) from exc


@dataclass(frozen=True)
class CapacityPlan:
    """How a target + draft pair fits on one GPU, and the vLLM flags that follow."""

    target: ModelSpec
    draft: ModelSpec | None
    dtype: str
    gpu_mem_gb: float
    gpu_memory_utilization: float
    max_model_len: int
    target_weights: int
    draft_weights: int
    kv_per_token_target: int
    kv_per_token_draft: int
    kv_budget: int
    kv_tokens: int
    max_num_seqs: int
    warnings: tuple[str, ...]

    @property
    def kv_per_token(self) -> int:
        return self.kv_per_token_target + self.kv_per_token_draft

    def vllm_command(self, target_id: str, draft_id: str | None, k: int = 5) -> str:
        """A full `vllm serve` command line for this plan."""
        parts = ["vllm", "serve", target_id, "--dtype", self.dtype]
        if draft_id:
            spec = {"method": "draft_model", "model": draft_id, "num_speculative_tokens": k}
            parts += ["--speculative-config", json.dumps(spec)]
        parts += [
            "--max-model-len", str(self.max_model_len),
            "--max-num-seqs", str(max(1, self.max_num_seqs)),
            "--gpu-memory-utilization", f"{self.gpu_memory_utilization:g}",
        ]  # fmt: skip
        return shlex.join(parts)

    def to_dict(self) -> dict[str, object]:
        return {
            "dtype": self.dtype,
            "gpu_mem_gib": self.gpu_mem_gb,
            "gpu_memory_utilization": self.gpu_memory_utilization,
            "max_model_len": self.max_model_len,
            "target_params": self.target.params,
            "draft_params": self.draft.params if self.draft else 0,
            "target_weights_bytes": self.target_weights,
            "draft_weights_bytes": self.draft_weights,
            "kv_bytes_per_token_target": self.kv_per_token_target,
            "kv_bytes_per_token_draft": self.kv_per_token_draft,
            "kv_bytes_per_sequence": self.kv_per_token * self.max_model_len,
            "kv_budget_bytes": self.kv_budget,
            "kv_tokens": self.kv_tokens,
            "max_num_seqs": self.max_num_seqs,
            "warnings": list(self.warnings),
        }


def plan(
    target: ModelSpec,
    draft: ModelSpec | None,
    *,
    gpu_mem_gb: float = 24.0,
    max_model_len: int = 8192,
    dtype: str = "bfloat16",
    gpu_memory_utilization: float = 0.90,
    reserve_gib: float = RUNTIME_RESERVE_GIB,
) -> CapacityPlan:
    """Weights + KV per token of both models → how many sequences of max_model_len fit."""
    if dtype not in DTYPE_BYTES:
        raise CapacityError(
            cli_text("cli.ops.capacity.unknown_dtype", dtype=dtype, known=", ".join(DTYPE_BYTES))
        )
    nbytes = DTYPE_BYTES[dtype]
    warnings: list[str] = []
    if target.max_positions and max_model_len > target.max_positions:
        warnings.append(
            cli_text("cli.ops.capacity.too_long", n=max_model_len, positions=target.max_positions)
        )
    if draft and draft.vocab_size != target.vocab_size:
        warnings.append(
            cli_text("cli.ops.capacity.vocab_differs", a=target.vocab_size, b=draft.vocab_size)
        )
    tw = target.weight_bytes(nbytes)
    dw = draft.weight_bytes(nbytes) if draft else 0
    kv_t = target.kv_bytes_per_token(nbytes)
    kv_d = draft.kv_bytes_per_token(nbytes) if draft else 0
    usable = gpu_mem_gb * GIB * gpu_memory_utilization
    budget = int(usable - tw - dw - reserve_gib * GIB)
    tokens = max(0, budget) // (kv_t + kv_d)
    seqs = tokens // max_model_len
    if seqs < 1:
        warnings.append(cli_text("cli.ops.capacity.no_room"))
    return CapacityPlan(
        target, draft, dtype, gpu_mem_gb, gpu_memory_utilization, max_model_len,
        tw, dw, kv_t, kv_d, budget, tokens, seqs, tuple(warnings),
    )  # fmt: skip


def format_plan(p: CapacityPlan, target_id: str, draft_id: str | None, k: int = 5) -> str:
    """Human-readable plan, bilingual labels."""

    def gib(n: int) -> str:
        return f"{n / GIB:.2f} GiB"

    def line(key: str, **values: object) -> str:
        return cli_text(f"cli.ops.capacity.{key}", **values)

    kv = f"target {p.kv_per_token_target:,} B" + (
        f" + draft {p.kv_per_token_draft:,} B = {p.kv_per_token:,} B" if p.draft else ""
    )
    lines = [
        line(
            "gpu_memory",
            gb=f"{p.gpu_mem_gb:g}",
            share=f"{p.gpu_memory_utilization:g}",
            reserve=f"{RUNTIME_RESERVE_GIB:g}",
        ),
        line("target_weights", b=f"{p.target.params / 1e9:.2f}", size=gib(p.target_weights)),
    ]
    if p.draft:
        lines.append(
            line("draft_weights", b=f"{p.draft.params / 1e9:.2f}", size=gib(p.draft_weights))
        )
    lines += [
        line("kv_per_token", kv=kv),
        line("kv_per_sequence", n=p.max_model_len, size=gib(p.kv_per_token * p.max_model_len)),
        line("kv_budget", size=gib(max(0, p.kv_budget)), tokens=f"{p.kv_tokens:,}"),
        line("max_num_seqs", n=p.max_model_len, seqs=p.max_num_seqs),
        *(f"⚠ {w}" for w in p.warnings),
        "",
        p.vllm_command(target_id, draft_id, k),
    ]
    return "\n".join(lines)
