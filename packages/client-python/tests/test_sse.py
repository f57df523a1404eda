"""The SSE parser: the WHATWG event-stream rules over bytes in any chunking."""

from __future__ import annotations

from svc_client._sse import SseEvent, SseParser


def feed_all(chunks: list[bytes]) -> tuple[list[SseEvent], SseParser]:
    parser = SseParser()
    events: list[SseEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    return events, parser


def test_events_with_type_id_and_multi_line_data() -> None:
    events, parser = feed_all([b"retry: 1000\n\nevent: change\nid: 5\ndata: a\ndata: b\n\n"])
    assert events == [SseEvent("change", "a\nb", "5")]
    assert parser.retry_ms == 1000
    assert parser.last_event_id == "5"


def test_comments_keep_alives_and_events_without_data_dispatch_nothing() -> None:
    events, _ = feed_all([b": keep-alive\n\nevent: lonely\n\n"])
    assert events == []


def test_default_type_bom_and_optional_space_after_the_colon() -> None:
    events, _ = feed_all(["\ufeffdata:x\n\ndata:  y\n\n".encode()])
    assert events == [SseEvent("message", "x", ""), SseEvent("message", " y", "")]


def test_every_line_ending_and_a_crlf_split_across_chunks() -> None:
    events, _ = feed_all([b"data: a\r\n\r\ndata: b\r\rdata: c\r", b"\n\r", b"\n"])
    assert [e.data for e in events] == ["a", "b", "c"]


def test_any_chunking_gives_the_same_events_including_split_utf8() -> None:
    stream = (
        'event: change\nid: 7\ndata: {"key": "caf\u00e9 \u2603"}\n\n: ping\n\ndata: z\n\n'.encode()
    )
    whole, _ = feed_all([stream])
    for size in (1, 2, 3, 7):
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert feed_all(chunks)[0] == whole
    assert whole[0].data == '{"key": "caf\u00e9 \u2603"}'


def test_ids_with_nul_are_ignored_and_unknown_fields_skipped() -> None:
    events, parser = feed_all([b"id: 1\n\nid: a\x00b\nfoo: bar\nretry: x\ndata: d\n\n"])
    assert events == [SseEvent("message", "d", "1")]
    assert parser.retry_ms is None
