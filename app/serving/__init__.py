"""The embedded CPU LLM server (`lexspec serve`) and its tooling: speculative engine, drafters, metrics."""
