"""The embedded CPU LLM server (`lexspec serve`): HTTP API, speculative engine, drafters, its own /metrics. Operator tools that read a server live in app/ops/."""
