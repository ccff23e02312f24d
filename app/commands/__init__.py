"""Subcommands of `lexspec`, one module per area, each with register(subparsers)."""
