"""Reviewing documents that others wrote: a standard contract against the official text, and the way in."""
