"""Record-keeping: audit log, users, the hash chain, its store and spool. Never imports streamlit."""
