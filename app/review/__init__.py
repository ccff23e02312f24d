"""Reviewing what others wrote: a DOCX, Markdown or text file read as its reader sees it
(reader, numbering), every check run on it on the date it speaks from (service), a standard
contract compared with the official text (contract), and the same DOCX handed back with a Word
comment on each finding's words (annotate)."""
