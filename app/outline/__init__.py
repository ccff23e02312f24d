"""Outline-driven drafting: prompts/<type>/outline.yaml, deterministic sources, guards on the
model's prose, and the run that drafts a document part by part (see docs/prompts.md)."""
