"""Blind review studies: tables, store, blinding, design, statistics and power, and the service
the pages and commands call. Imports nothing itself: audit.coverage imports `tables` alone."""
