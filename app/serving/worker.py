"""The model worker: serves queued requests one at a time on the process's MAIN thread (the
HTTP event loop runs in another thread). llama.cpp decodes about 8x slower when called from
a non-main thread here (measured 25 vs 200 tok/s), so the model must stay on the main thread.
Events go back to the request's asyncio queue; a cancelled job frees the slot at the next
step (or is skipped if it is still waiting)."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.serving.metrics import Metrics
from app.serving.speculative import Engine, Request
from app.serving.text import TextAssembler

log = logging.getLogger(__name__)


@dataclass
class Job:
    request: Request
    stop: list[str]
    loop: asyncio.AbstractEventLoop
    events: asyncio.Queue[tuple[str, Any]] = field(default_factory=asyncio.Queue)
    created: float = field(default_factory=time.perf_counter)

    def emit(self, kind: str, payload: Any) -> None:
        self.loop.call_soon_threadsafe(self.events.put_nowait, (kind, payload))


@dataclass
class Outcome:
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    draft_tokens: int
    accepted_tokens: int


class Worker:
    """Owns the engine; `submit` queues a job, `run` (on the main thread) serves it and
    streams text deltas back."""

    def __init__(
        self, engine: Engine, metrics: Metrics, *, after_job: Callable[[], None] | None = None
    ) -> None:
        self.engine = engine
        self.metrics = metrics
        self.after_job = after_job  # between requests (launch: the pass costs' write-back)
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._waiting: list[Job] = []  # submitted, not yet started, in order
        self._serving: Job | None = None

    def submit(self, job: Job) -> None:
        self.metrics.add("vllm:num_requests_waiting", 1)
        with self._lock:
            self._waiting.append(job)
        self._queue.put(job)

    def ahead(self, job: Job) -> int | None:
        """How many requests the worker will serve before `job` (the one it is serving
        included; those whose clients have gone are not counted); None once `job` has started
        (or is unknown)."""
        with self._lock:
            index = next((i for i, j in enumerate(self._waiting) if j is job), None)
            if index is None:
                return None
            live = sum(not j.request.cancelled.is_set() for j in self._waiting[:index])
            return live + (self._serving is not None)

    def stop(self) -> None:
        self._queue.put(None)

    def run(self, keep_going: Callable[[], bool]) -> None:
        """Serve jobs until stop() or until keep_going() turns false (checked twice a second)."""
        while keep_going():
            try:
                job = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            if job is None:
                return
            self._run_job(job)

    def _run_job(self, job: Job) -> None:
        self.metrics.add("vllm:num_requests_waiting", -1)
        with self._lock:
            self._waiting = [j for j in self._waiting if j is not job]
            if job.request.cancelled.is_set():  # its client left while it waited: an abort too
                self.metrics.inc("vllm:request_success", finished_reason="abort")
                return
            self._serving = job
        self.metrics.add("vllm:num_requests_running", 1)
        try:
            job.emit("done", self._serve(job))
        except Exception as exc:  # a failed request must not take the worker down
            log.exception("generation failed")
            job.emit("error", str(exc))
        finally:
            with self._lock:
                self._serving = None
            self.metrics.add("vllm:num_requests_running", -1)
            # Between requests nothing holds the cache: the kept prefix is only reusable (vLLM
            # counts such cached-but-free blocks as free too), so an idle server reads 0%.
            self.metrics.set("vllm:kv_cache_usage_perc", 0.0)
        if self.after_job is not None:
            self.after_job()

    def _serve(self, job: Job) -> Outcome:
        m, req = self.metrics, job.request
        asm = TextAssembler(self.engine.model.pieces, job.stop)
        first: float | None = None
        last = job.created
        completion = drafted = accepted = 0
        finish = "length"
        for step in self.engine.generate(req):
            now = time.perf_counter()
            if step.tokens:
                if first is None:
                    first = now
                    m.observe("vllm:time_to_first_token_seconds", now - job.created)
                else:
                    m.observe(
                        "vllm:inter_token_latency_seconds",
                        (now - last) / len(step.tokens),
                        len(step.tokens),
                    )
                last = now
            completion += len(step.tokens)
            drafted += step.drafted
            accepted += step.accepted
            m.record_step(step.drafted, step.accepted)
            m.set("vllm:kv_cache_usage_perc", self.engine.model.kv_usage())
            delta = asm.feed(step.tokens)
            if delta:
                job.emit("delta", delta)
            if asm.stopped:
                finish = "stop"
                break
            if step.finish:
                finish = step.finish
        tail = asm.flush()
        if tail and finish != "cancelled":
            job.emit("delta", tail)
        m.inc("vllm:prompt_tokens", len(req.prompt))
        m.inc("vllm:prefix_cache_queries", len(req.prompt))
        m.inc("vllm:prefix_cache_hits", self.engine.last_reused)
        m.inc("vllm:generation_tokens", completion)
        m.observe("vllm:e2e_request_latency_seconds", time.perf_counter() - job.created)
        m.inc("vllm:request_success", finished_reason="abort" if finish == "cancelled" else finish)
        return Outcome(finish, len(req.prompt), completion, drafted, accepted)
