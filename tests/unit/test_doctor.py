"""`lexspec doctor` tokenizer checks on small stand-in tokenizers and the real SmolLM2 GGUF."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.ops.doctor import DoctorError, diagnose, format_report, load_tokenizer

TOK = Path(__file__).resolve().parent.parent / "fixtures" / "tokenizers"


def test_phi3_mini_with_llama3_is_incompatible() -> None:
    target, draft = load_tokenizer(TOK / "llama-3-8b"), load_tokenizer(TOK / "phi-3-mini")
    assert (target.embedding_rows, draft.embedding_rows) == (128_256, 32_064)
    assert (target.tokenizer_size, draft.tokenizer_size) == (128_256, 32_011)
    assert target.special["bos"] == ("<|begin_of_text|>", 128_000)
    assert draft.special["unk"] == ("<unk>", 0)
    report = diagnose(target, draft)
    assert not report.compatible
    failed = {c.name for c in report.checks if not c.ok}
    assert {"vocab_size", "tokenizer_size", "vocab_map", "special.bos", "special.eos"} <= failed
    assert "draft_model" in format_report(report, "en") and "incompatible" in format_report(
        report, "en"
    )
    assert any("128,256" in r and "32,064" in r for r in report.reasons("en"))


def test_qwen3_pair_is_compatible() -> None:
    report = diagnose(load_tokenizer(TOK / "qwen3-8b"), load_tokenizer(TOK / "qwen3-0.6b"))
    assert report.compatible, report.reasons("en")
    assert report.target.embedding_rows == 151_936
    assert report.target.tokenizer_size == 151_669
    assert "兼容" in format_report(report)


def test_same_size_but_shuffled_ids_is_incompatible(tmp_path: Path) -> None:
    shutil.copytree(TOK / "qwen3-0.6b", tmp_path / "m")
    tok_file = tmp_path / "m" / "tokenizer.json"
    tok = json.loads(tok_file.read_text())
    vocab = tok["model"]["vocab"]
    a, b = "the", "of"
    vocab[a], vocab[b] = vocab[b], vocab[a]
    tok_file.write_text(json.dumps(tok))
    report = diagnose(load_tokenizer(TOK / "qwen3-8b"), load_tokenizer(tmp_path / "m"))
    assert not report.compatible
    assert [c.name for c in report.checks if not c.ok] == ["vocab_map"]


def test_smollm2_gguf_with_itself() -> None:
    pytest.importorskip("llama_cpp")
    from app.config import default_model_path

    path = default_model_path()
    report = diagnose(load_tokenizer(path), load_tokenizer(path))
    assert report.compatible
    assert report.target.embedding_rows == 49_152
    assert any(c.name == "sample_text" and c.ok for c in report.checks)


def test_gguf_against_hf_dir_is_incompatible() -> None:
    pytest.importorskip("llama_cpp")
    from app.config import default_model_path

    report = diagnose(load_tokenizer(default_model_path()), load_tokenizer(TOK / "qwen3-0.6b"))
    assert not report.compatible


def test_bad_paths_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(DoctorError, match=r"tokenizer\.json"):
        load_tokenizer(tmp_path)
    (tmp_path / "x.bin").write_bytes(b"x")
    with pytest.raises(DoctorError, match="gguf"):
        load_tokenizer(tmp_path / "x.bin")
    (tmp_path / "x.gguf").write_bytes(b"not a gguf")
    with pytest.raises(DoctorError):
        load_tokenizer(tmp_path / "x.gguf")


def test_cli_doctor_and_plan(capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    assert main(["doctor", str(TOK / "llama-3-8b"), str(TOK / "phi-3-mini"), "--lang", "en"]) == 1
    out = capsys.readouterr().out
    assert "incompatible" in out and "vllm serve" not in out
    args = ["--target-id", "Qwen/Qwen3-8B", "--draft-id", "Qwen/Qwen3-0.6B"]
    assert main(["doctor", str(TOK / "qwen3-8b"), str(TOK / "qwen3-0.6b"), *args]) == 0
    out = capsys.readouterr().out
    assert "147,456" in out and "vllm serve Qwen/Qwen3-8B" in out and "--speculative-config" in out
    assert main(["plan", str(TOK / "qwen3-8b"), "--json"]) == 0
    assert '"kv_bytes_per_token_target": 147456' in capsys.readouterr().out
    assert main(["doctor", "/no/such/dir", str(TOK / "qwen3-8b")]) == 2
    assert "error" in capsys.readouterr().err
