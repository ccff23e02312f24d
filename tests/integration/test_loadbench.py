"""`lexspec bench` against two real embedded servers (loopback only, bounded requests)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from app.cli import main
from app.config import get_settings
from app.knowledge import Knowledge
from app.ops.bench_report import verdict, write_outputs
from app.ops.loadbench import one_request, resolve_target, run_bench, workload

pytestmark = pytest.mark.integration


def test_sweep_both_arms_and_k_sweep(
    drafting_url: str, plain_llm_base_url: str, tmp_path: Path
) -> None:
    spec, plain = resolve_target(drafting_url, {}), resolve_target(plain_llm_base_url, {})
    chats = workload(Knowledge.of(get_settings()).library)[
        :1
    ]  # the shortest legal prompt, bounded run
    seen: list[tuple[int, int]] = []
    run = run_bench(
        spec, plain, chats, levels=[1, 2], requests_per_level=2, max_tokens=16,
        time_budget_s=300, k_values=[2], progress=lambda d, t, _label: seen.append((d, t)),
    )  # fmt: skip
    assert [(r.target, r.concurrency, r.requests, r.errors) for r in run.levels] == [
        (spec.name, 1, 2, 0), (plain.name, 1, 2, 0), (spec.name, 2, 2, 0), (plain.name, 2, 2, 0),
    ]  # fmt: skip
    for r in run.levels:
        assert r.throughput_tok_s > 0 and r.ttft_p50_s is not None and r.latency_p95_s is not None
    by_arm = {r.target: r for r in run.levels if r.concurrency == 1}
    assert by_arm[spec.name].acceptance_rate is not None  # from /metrics deltas
    assert by_arm[plain.name].acceptance_rate is None  # plain decoding drafts nothing
    assert run.identical_rate == 1.0  # temperature 0: speculation is lossless
    assert [k.k for k in run.k_sweep] == [2] and run.k_sweep[0].level.errors == 0
    assert seen[-1][0] == seen[-1][1] and len(seen) >= 9
    paths = write_outputs(run, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["verdict"]["suited"] == verdict(run).suited and len(data["levels"]) == 4
    assert "| endpoint | concurrency |" in paths["md"].read_text()
    assert paths["png"].read_bytes()[:4] == b"\x89PNG"


def test_cli_bench(
    llm_base_url: str, plain_llm_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["bench", llm_base_url, plain_llm_base_url, "--concurrency", "1",
               "--requests-per-level", "1", "--max-tokens", "8", "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert "Verdict / 结论" in out.out and "[" in out.err  # table on stdout, progress bar on stderr
    assert (tmp_path / "bench.png").is_file()
    assert main(["bench", "no-such-endpoint", plain_llm_base_url]) == 2
    assert "unknown endpoint" in capsys.readouterr().err


def test_one_request_reports_the_embedded_servers_draft_counts(
    drafting_url: str, plain_llm_base_url: str
) -> None:
    """The last chunk's spec_decode counts reach RequestResult (the bench reads them)."""
    prompt = "List the days of the week, then list them again."
    messages = [{"role": "user", "content": prompt}]
    with httpx.Client(timeout=120) as http:
        spec = one_request(http, resolve_target(drafting_url, {}), messages, 0, 64)
        plain = one_request(http, resolve_target(plain_llm_base_url, {}), messages, 0, 64)
    assert spec.ok and plain.ok
    assert spec.draft_tokens > 0 and 0 <= spec.accepted_tokens <= spec.draft_tokens
    assert plain.draft_tokens == plain.accepted_tokens == 0
    assert spec.text == plain.text and spec.completion_tokens == plain.completion_tokens > 0
