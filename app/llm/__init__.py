"""OpenAI-compatible streaming client (client.py); the endpoint registry and router, and the
reader of a server's Prometheus /metrics (metrics_parse.py), live beside it. Import from the
module itself: the package imports nothing, so `app.llm.net` (used by operator tools and
`lexspec` commands that never stream) does not load the openai client with it."""
