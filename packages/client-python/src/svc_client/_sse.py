"""A server-sent-event parser after the WHATWG "event stream interpretation".

UTF-8 bytes in any chunking, lines ended by CR, LF or CRLF, ``:`` comments, ``event``,
``data``, ``id`` and ``retry`` fields, an event dispatched at each blank line (none when it has
no data). Not thread-safe: one parser per connection.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

_LINE_END = re.compile(r"\r\n|\r|\n")


class SseEvent(NamedTuple):
    """One dispatched event."""

    event: str
    """The ``event:`` field, ``message`` when there was none."""
    data: str
    """The ``data:`` lines joined with newlines."""
    id: str
    """The stream's last event id at this event (empty when none came)."""


class SseParser:
    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._started = False
        self._after_cr = False
        self._event_type = ""
        self._data: list[str] = []
        self.last_event_id = ""
        """The last ``id:`` of the stream (empty when none came)."""
        self.retry_ms: int | None = None
        """The last ``retry:`` value in milliseconds, or None."""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Feeds raw bytes; returns the events they completed, in order. A UTF-8 sequence
        split across chunks is decoded once complete."""
        return self.feed_text(self._decoder.decode(chunk))

    def feed_text(self, text: str) -> list[SseEvent]:
        """Feeds decoded text; returns the events it completed, in order."""
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._after_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across chunks
        self._after_cr = False
        buffer = self._pending + text
        events: list[SseEvent] = []
        start = 0
        for end in _LINE_END.finditer(buffer):
            self._line(buffer[start : end.start()], events)
            start = end.end()
        self._after_cr = buffer.endswith("\r")
        self._pending = buffer[start:]
        return events

    def _line(self, line: str, events: list[SseEvent]) -> None:
        if line == "":
            self._dispatch(events)
            return
        if line.startswith(":"):
            return
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event_type = value
        elif field == "data":
            self._data.append(value)
        elif field == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            self.retry_ms = int(value)
        # Other fields are ignored, as the standard says.

    def _dispatch(self, events: list[SseEvent]) -> None:
        if self._data:
            events.append(
                SseEvent(self._event_type or "message", "\n".join(self._data), self.last_event_id)
            )
        self._data = []
        self._event_type = ""
