"""Matters (案件): a client's cross-border transfer, its facts entered once, the documents its
route needs and the documents drafted for it (table `matters`, migration 0013)."""
