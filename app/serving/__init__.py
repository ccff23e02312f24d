"""The embedded CPU LLM server (`lexspec serve`): HTTP API, speculative engine, drafters, its
own /metrics. Self-contained: it imports nothing of the app but app.domain (Settings derive
their drafter choices from its registry). Starting it as a child process and the tools that
read a server from outside live in app/ops/ and app/llm/."""
