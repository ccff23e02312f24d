"""The Streamlit pages: one module per page, widgets and layout only (see app/main.py)."""
