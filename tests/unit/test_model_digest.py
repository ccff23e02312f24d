"""A model file's fingerprint (the key its writing measurement is kept by): the same bytes
under another name or path give the same digest; other bytes, or another size, do not."""

from __future__ import annotations

from pathlib import Path

from app.serving.launch import DIGEST_SPAN, file_digest


def test_the_digest_follows_the_bytes_not_the_name(tmp_path: Path) -> None:
    body = bytes(range(256)) * (3 * DIGEST_SPAN // 256)  # longer than both ends together
    a, b = tmp_path / "a.gguf", tmp_path / "sub" / "renamed.gguf"
    b.parent.mkdir()
    a.write_bytes(body)
    b.write_bytes(body)
    assert file_digest(a) == file_digest(b) and len(file_digest(a)) == 16
    changed = bytearray(body)
    changed[-1] ^= 1  # the last byte: in the tail that is read
    b.write_bytes(bytes(changed))
    assert file_digest(b) != file_digest(a)
    b.write_bytes(body + b"\0")  # one byte longer
    assert file_digest(b) != file_digest(a)
    small = tmp_path / "small.gguf"
    small.write_bytes(b"tiny")  # shorter than a span: read whole, still a digest
    assert len(file_digest(small)) == 16
