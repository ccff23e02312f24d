"""Operator tools around a model server (ours or vLLM): capacity planning, the draft/target
doctor, the load benchmark and its report, and the Prometheus /metrics reader the Monitor
page and `lexspec metrics` use. `app/serving/` holds only the server itself."""
