"""Operator tools around a model server (ours or vLLM): capacity planning, the draft/target
doctor, the load benchmark and its report, and starting a server as a child process
(process.py). `app/serving/` holds only the server itself."""
