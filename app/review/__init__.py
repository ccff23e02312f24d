"""Blind review studies: arms, plans, gold items, reports, and approving precedents."""
