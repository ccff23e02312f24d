"""Record-keeping: audit log, users, blind review studies. Never imports streamlit."""
