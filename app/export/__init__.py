"""DOCX export: a draft (plain text / light markdown) to a styled Word document
(`docx_writer.draft_to_docx`). The package imports nothing itself: a command that only names a
style (`official.STYLE_NAMES`) does not load python-docx (0.04 s of CPU)."""
