"""Approving drafts and the firm's clauses (precedents); blind review studies are app.studies."""
