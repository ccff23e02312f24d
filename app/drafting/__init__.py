"""The draft: prepared, streamed, checked, recorded, revised and exported."""
