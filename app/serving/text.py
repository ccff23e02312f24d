"""Token ids to streamed text: incremental UTF-8 (a Chinese character may span tokens) and
stop strings (text that could still become a stop string is held back until it cannot).

Bytes that do not (yet) make a whole character are held back until the next token completes
it; bytes that can never become one (a character the model broke off, or cut by max_tokens at
the end) are dropped, so streamed text never contains U+FFFD in their place.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence


class TextAssembler:
    def __init__(self, pieces: Sequence[bytes], stop: Sequence[str] = ()) -> None:
        self._pieces = pieces
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        self._stop = [s for s in stop if s]
        self._hold = max((len(s) for s in self._stop), default=1) - 1
        self.text = ""
        self._emitted = 0
        self.stopped = False

    def feed(self, tokens: Sequence[int]) -> str:
        """Add tokens; return the new text that is safe to send (empty once a stop string hit)."""
        if self.stopped:
            return ""
        start = max(0, len(self.text) - self._hold)
        self.text += self._decoder.decode(b"".join(self._pieces[t] for t in tokens))
        for s in self._stop:
            idx = self.text.find(s, start)
            if idx >= 0:
                self.text = self.text[:idx]
                self.stopped = True
        end = len(self.text) if self.stopped else max(self._emitted, len(self.text) - self._hold)
        delta = self.text[self._emitted : end]
        self._emitted = end
        return delta

    def flush(self) -> str:
        """The rest of the text once generation ended (an incomplete last character dropped)."""
        if not self.stopped:
            self.text += self._decoder.decode(b"", final=True)
        delta = self.text[self._emitted :]
        self._emitted = len(self.text)
        return delta
