"""Plain vs speculative decoding on a legal workload, measured side by side.

Starts one embedded server per mode (off, ngram, retrieval[, draft]) at the same time and sends
each request to every server in turn (A B C A B C ...), so that the shared CPU's load hits all
arms alike. Two workloads:
- first drafts: statute-heavy Chinese requests the corpus has never seen;
- re-drafting: the same document types with different field values, after the first run's
  outputs were saved into the retrieval server's corpus (as a firm's approved outputs).
It also times llama-cpp-python's own plain generation (Llama.create_chat_completion,
in-process) on the same prompts, to show the server's overhead.

    .venv/bin/python bench/speculative.py --max-tokens 256 --reps 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.llm.metrics_parse import scrape  # noqa: E402
from app.ops import process  # noqa: E402
from app.ops.loadbench import RequestResult, Target, one_request, resolve_target  # noqa: E402

SYSTEM = "你是一名中国数据合规律师。请用简体中文起草，分章节编号，并准确引用法律条文。"
FIRST_DRAFTS = [
    "请起草《数据出境安全评估申报表》填写指南，按“一、二、三……”分节，说明申报主体、"
    "申报材料、评估事项，并引用《数据出境安全评估办法》第四条、第五条、第六条和"
    "《中华人民共和国个人信息保护法》第三十八条、第四十条。",
    "请列出保密协议审查要点，引用《中华人民共和国民法典》第五百零一条、第五百零九条，"
    "以及《中华人民共和国反不正当竞争法》第九条，逐条说明。",
    "请续写以下合同条款：“第八条 数据安全 8.1 乙方应当按照《中华人民共和国数据安全法》"
    "第二十七条的规定，建立健全全流程数据安全管理制度……”",
]
REDRAFT_TEMPLATE = (
    "请为{company}起草《数据出境安全评估申报表》填写指南。基本情况：{company}拟向位于{country}"
    "的境外接收方{recipient}提供{volume}万人的个人信息，用于{purpose}。请按“一、二、三……”分节，"
    "引用《数据出境安全评估办法》第四条、《个人信息出境标准合同办法》第四条和"
    "《中华人民共和国个人信息保护法》第三十八条。"
)
FIRST_VALUES = [
    {
        "company": "上海星河医疗科技有限公司",
        "country": "新加坡",
        "recipient": "Helix Health Pte. Ltd.",
        "volume": "120",
        "purpose": "跨境临床数据分析",
    },
    {
        "company": "杭州云帆电子商务有限公司",
        "country": "德国",
        "recipient": "Nordwind GmbH",
        "volume": "35",
        "purpose": "海外订单履约",
    },
]
REDRAFT_VALUES = [
    {
        "company": "深圳远景医疗器械有限公司",
        "country": "日本",
        "recipient": "Sakura Medical K.K.",
        "volume": "80",
        "purpose": "医疗器械不良事件监测",
    },
    {
        "company": "苏州华链电子商务有限公司",
        "country": "法国",
        "recipient": "Lumière SAS",
        "volume": "42",
        "purpose": "跨境客户服务",
    },
]


FIRST_DRAFTS_EN = [
    "Draft a filing guide for the Security Assessment Application Form for outbound data "
    "transfers. Use numbered sections covering who must apply, the documents required and the "
    "assessment criteria, citing Articles 4, 5 and 6 of the Measures for the Security Assessment "
    "of Outbound Data Transfers and Articles 38 and 40 of the Personal Information Protection Law.",
    "List the key review points of a confidentiality agreement under Articles 501 and 509 of the "
    "PRC Civil Code and Article 9 of the Anti-Unfair Competition Law, one numbered point each.",
    "Continue this contract clause: 'Article 8 Data Security. 8.1 The Processor shall, in "
    "accordance with Article 27 of the Data Security Law, establish a data security management "
    "system covering the whole data lifecycle...'",
]
REDRAFT_TEMPLATE_EN = (
    "Draft a filing guide for {company_en}'s application for a security assessment of an outbound "
    "data transfer. {company_en} plans to provide personal information of {volume}0,000 "
    "individuals to {recipient} in {country_en} for {purpose_en}. Use numbered sections and cite "
    "Article 4 of the Measures for the Security Assessment of Outbound Data Transfers and "
    "Article 38 of the Personal Information Protection Law."
)
EN_VALUES = {
    "上海星河医疗科技有限公司": (
        "Shanghai Xinghe Medical Technology Co., Ltd.",
        "Singapore",
        "cross-border clinical data analysis",
    ),
    "杭州云帆电子商务有限公司": (
        "Hangzhou Yunfan E-commerce Co., Ltd.",
        "Germany",
        "overseas order fulfilment",
    ),
    "深圳远景医疗器械有限公司": (
        "Shenzhen Yuanjing Medical Devices Co., Ltd.",
        "Japan",
        "adverse-event monitoring of medical devices",
    ),
    "苏州华链电子商务有限公司": (
        "Suzhou Hualian E-commerce Co., Ltd.",
        "France",
        "cross-border customer service",
    ),
}


def _prompts(values: dict[str, str]) -> list[str]:
    """The re-drafting request for one set of field values, in Chinese and in English."""
    company_en, country_en, purpose_en = EN_VALUES[values["company"]]
    en = {"company_en": company_en, "country_en": country_en, "purpose_en": purpose_en}
    return [REDRAFT_TEMPLATE.format(**values), REDRAFT_TEMPLATE_EN.format(**values, **en)]


def _messages(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


@contextmanager
def server(mode: str, *args: str) -> Iterator[Target]:
    """A `lexspec serve` subprocess, once healthy."""
    with process.embedded_server("--speculative", mode, *args) as v1:
        yield resolve_target(v1, {})


def chat(target: Target, messages: list[dict[str, str]], max_tokens: int) -> RequestResult:
    """One streamed temperature-0 request, timed (whole request, and to the first text)."""
    with httpx.Client(timeout=600) as http:
        r = one_request(http, target, messages, 0, max_tokens)
    if not r.ok:
        raise RuntimeError(f"{target.name}: {r.error}")
    return r


def drafts_total(target: Target) -> float:
    return scrape(target.endpoint).counters.get("spec_decode_num_drafts", 0.0)


class Arm:
    """Accumulated numbers for one server on one workload."""

    def __init__(self) -> None:
        self.tokens = 0
        self.seconds = 0.0
        self.draft = 0
        self.accepted = 0
        self.drafts = 0.0
        self.identical = 0
        self.n = 0
        self.decode_tokens = 0
        self.decode_seconds = 0.0
        # per prompt, one per repetition: tok/s over the plain server's on the same prompt, and
        # the same for decode speed (after the first token)
        self.ratios: dict[int, list[float]] = {}
        self.decode_ratios: dict[int, list[float]] = {}

    def add(self, r: RequestResult, same: bool) -> None:
        self.tokens += r.completion_tokens
        self.seconds += r.total_s
        self.decode_tokens += r.completion_tokens - 1
        self.decode_seconds += r.total_s - (r.ttft_s if r.ttft_s is not None else r.total_s)
        self.draft += r.draft_tokens
        self.accepted += r.accepted_tokens
        self.identical += same
        self.n += 1

    @property
    def tok_s(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0

    @property
    def decode_tok_s(self) -> float:
        return self.decode_tokens / self.decode_seconds if self.decode_seconds else 0.0


def worst_prompt(ratios: dict[int, list[float]]) -> float:
    """The lowest per-prompt ratio, each the geometric mean of that prompt's repetitions."""
    return min(statistics.geometric_mean(r) for r in ratios.values())


def lowest_pair(ratios: dict[int, list[float]]) -> float:
    return min(min(r) for r in ratios.values())


def speeds(r: RequestResult) -> tuple[float, float]:
    """(tok/s over the whole request, tok/s after the first token) of one response."""
    return r.completion_tokens / r.total_s, r.tok_s or 0.0


def run_workload(
    roots: dict[str, Target], prompts: list[list[dict[str, str]]], args: argparse.Namespace
) -> dict[str, Arm]:
    arms = {mode: Arm() for mode in roots}
    before = {mode: drafts_total(root) for mode, root in roots.items()}
    for rep in range(args.reps):
        for i, messages in enumerate(prompts):
            order = list(roots) if (rep + i) % 2 == 0 else list(reversed(roots))
            results = {}
            for mode in order:
                time.sleep(args.pause)  # let the previous server's threads go idle
                results[mode] = chat(roots[mode], messages, args.max_tokens)
            plain_text = results["off"].text
            plain, plain_decode = speeds(results["off"])
            for mode, r in results.items():
                arms[mode].add(r, r.text == plain_text)
                speed, decode = speeds(r)
                arms[mode].ratios.setdefault(i, []).append(speed / plain)
                arms[mode].decode_ratios.setdefault(i, []).append(decode / plain_decode)
            print(
                f"  rep {rep} prompt {i}: "
                + ", ".join(
                    f"{m} {speeds(r)[0]:.0f} tok/s ({speeds(r)[1]:.0f} decoding"
                    f", {r.accepted_tokens}/{r.draft_tokens} drafts accepted)"
                    for m, r in results.items()
                ),
                flush=True,
            )
    for mode, root in roots.items():
        arms[mode].drafts = drafts_total(root) - before[mode]
    return arms


def raw_llama(
    prompts: list[list[dict[str, str]]], args: argparse.Namespace, plain: Target
) -> tuple[float, float]:
    """tok/s of Llama.create_chat_completion in-process vs the plain server, interleaved."""
    import llama_cpp

    from app.config import get_settings

    s = get_settings()
    llm = llama_cpp.Llama(
        model_path=str(s.resolved_model_path),
        n_ctx=s.n_ctx,
        n_threads=s.n_threads,
        n_threads_batch=s.n_threads,
        verbose=False,
        chat_format="chat_template.default",
    )
    raw_tok = raw_s = srv_tok = srv_s = 0.0
    for _ in range(args.reps):
        for messages in prompts:
            t0 = time.perf_counter()
            out = llm.create_chat_completion(
                messages, temperature=0, max_tokens=args.max_tokens, repeat_penalty=1.0
            )
            raw_s += time.perf_counter() - t0
            raw_tok += out["usage"]["completion_tokens"]
            r = chat(plain, messages, args.max_tokens)
            srv_s += r.total_s
            srv_tok += r.completion_tokens
    llm.close()
    return raw_tok / raw_s, srv_tok / srv_s


def ceiling(k: int, contexts: tuple[int, ...] = (300, 800)) -> list[tuple[int, float, float]]:
    """(context, cost of a (k+1)-row pass in single-token passes, best speed-up at 100 % acceptance).

    A verify pass that accepts all k drafts yields k+1 tokens for the price of one (k+1)-row
    pass, so (k+1) / cost is the most any drafter can gain on this machine at that context.
    Timed in-process on the same model and settings as the servers, while they are idle.
    """
    from app.config import get_settings
    from app.serving.model import Model
    from app.serving.speculative import time_passes_at

    s = get_settings()
    model = Model(s.resolved_model_path, n_ctx=s.n_ctx, n_threads=s.n_threads)
    times = {(n, c): t for n, c, t in time_passes_at(model, contexts, (1, k + 1), reps=9)}
    model.close()
    out = []
    for context in contexts:
        cost = times[k + 1, context] / times[1, context]
        out.append((context, cost, (k + 1) / cost))
    return out


def table(name: str, arms: dict[str, Arm]) -> list[str]:
    rows = [
        "| workload | mode | tok/s | × plain | worst prompt | lowest single pair | decode tok/s "
        "| decode × plain | worst prompt (decode) | acceptance rate | mean acceptance length "
        "| identical to plain |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, a in arms.items():
        plain = arms["off"]
        rate = f"{a.accepted / a.draft:.2f}" if a.draft else "–"
        mal = f"{1 + a.accepted / a.drafts:.2f}" if a.drafts else "–"
        rows.append(
            f"| {name} | {mode} | {a.tok_s:.1f} | {a.tok_s / plain.tok_s:.2f} "
            f"| {worst_prompt(a.ratios):.2f} | {lowest_pair(a.ratios):.2f} | {a.decode_tok_s:.1f} "
            f"| {a.decode_tok_s / plain.decode_tok_s:.2f} | {worst_prompt(a.decode_ratios):.2f} "
            f"| {rate} | {mal} | {a.identical}/{a.n} |"
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--pause", type=float, default=0.5, help="seconds between requests (idle threads settle)"
    )
    parser.add_argument("--k", type=int, default=16, help="--num-speculative-tokens for every arm")
    parser.add_argument(
        "--with-draft", action="store_true", help="also the target as its own draft model"
    )
    parser.add_argument("--json", type=Path, help="write the raw numbers here")
    args = parser.parse_args()
    k = ("--num-speculative-tokens", str(args.k))
    first = [_messages(p) for p in FIRST_DRAFTS + FIRST_DRAFTS_EN]
    seed = [_messages(p) for v in FIRST_VALUES for p in _prompts(v)]
    redraft = [_messages(p) for v in REDRAFT_VALUES for p in _prompts(v)]
    with tempfile.TemporaryDirectory() as corpus, ExitStack() as stack:
        roots = {"off": stack.enter_context(server("off"))}
        roots["ngram"] = stack.enter_context(server("ngram", *k))
        roots["retrieval"] = stack.enter_context(server("retrieval", "--corpus", corpus, *k))
        if args.with_draft:
            from app.config import get_settings

            gguf = str(get_settings().resolved_model_path)
            roots["draft"] = stack.enter_context(server("draft_model", "--draft-model", gguf, *k))
        results: dict[str, dict[str, Arm]] = {}
        for name, prompts in (("first drafts (zh)", first[:3]), ("first drafts (en)", first[3:])):
            print(name, flush=True)
            results[name] = run_workload(roots, prompts, args)
        print("first run of the document type (its outputs become the corpus)", flush=True)
        for i, messages in enumerate(seed):
            text = chat(roots["off"], messages, args.max_tokens).text
            (Path(corpus) / f"approved-{i}.md").write_text(text, encoding="utf-8")
        time.sleep(2.5)  # the retrieval server re-reads its corpus at most every 2 s
        for name, prompts in (
            ("re-drafting (zh)", redraft[0::2]),
            ("re-drafting (en)", redraft[1::2]),
        ):
            print(name, flush=True)
            results[name] = run_workload(roots, prompts, args)
        print("server overhead against llama-cpp-python", flush=True)
        raw, srv = raw_llama([first[0], first[3], redraft[1]], args, roots["off"])
        print("cost of a verify pass on this machine", flush=True)
        limits = ceiling(args.k)
    lines = table("", {})[:2]
    for name, arms in results.items():
        lines += table(name, arms)[2:]
    print("\n".join(lines))
    print(
        f"\nllama-cpp-python create_chat_completion: {raw:.1f} tok/s; plain server: {srv:.1f} tok/s "
        f"({srv / raw:.2f}×)"
    )
    for context, cost, best in limits:
        print(
            f"at {context} tokens of context a {args.k + 1}-row verify pass costs {cost:.1f} "
            f"single-token passes: at most {best:.2f}x even if every draft were accepted"
        )
    if args.json:
        data = {w: {m: vars(a) for m, a in arms.items()} for w, arms in results.items()}
        extra = {"raw_tok_s": raw, "server_tok_s": srv, "ceiling": limits}
        args.json.write_text(json.dumps(data | extra, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
