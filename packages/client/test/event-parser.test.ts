/**
 * The client's small `text/event-stream` parser against eventsource-parser (the maintained
 * library it replaces, kept as a test dependency): the same bytes, split at every possible
 * place and at random ones, must give the same events.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { createEventParser, type StreamEvent } from '../src/event-parser.ts';

/** What the client reads of an event: its type and data. */
const viaLibrary = (chunks: string[]) => {
  const events: StreamEvent[] = [];
  const parser = createParser({
    onEvent: (e: EventSourceMessage) => events.push({ event: e.event, data: e.data }),
  });
  for (const chunk of chunks) parser.feed(chunk);
  return events;
};

const viaClient = (chunks: string[]) => {
  const events: StreamEvent[] = [];
  const feed = createEventParser();
  for (const chunk of chunks) events.push(...feed(chunk));
  return events;
};

/** The contract's frames and the format's corners, in every line-ending style. */
const stream = [
  'retry: 1000\n\n',
  'event: resync\ndata: {"revision":41}\n\n',
  ': keep-alive\n\n',
  'event: change\nid: 42\ndata: {"revision":42,"kind":"flag","key":"a","op":"upsert","value":true}\n\n',
  'event: change\r\nid: 43\r\ndata: {"revision":43,"kind":"config","key":"b","op":"delete"}\r\n\r\n',
  'event:change\rdata:{"no":"space"}\r\r',
  'data: first line\ndata:  second, with a leading space\ndata\n\n',
  'event: only-a-type\n\n',
  'data: ünïcödé ✓ and a colon: here\n\n',
  'unknown: field\nevent\ndata: bare event field\n\n',
  'data: {"revision":44}\n\n',
].join('');

describe('createEventParser', () => {
  it('reads the stream as eventsource-parser does, in one chunk', () => {
    const events = viaClient([stream]);
    expect(events).toEqual(viaLibrary([stream]));
    expect(events.map((e) => e.event)).toEqual([
      'resync',
      'change',
      'change',
      'change',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('gives the same events however the bytes are split', () => {
    const want = viaLibrary([stream]);
    for (let at = 0; at <= stream.length; at++) {
      expect(viaClient([stream.slice(0, at), stream.slice(at)])).toEqual(want);
    }
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let round = 0; round < 200; round++) {
      const chunks: string[] = [];
      for (let from = 0; from < stream.length;) {
        const to = from + 1 + Math.floor(random() * 12);
        chunks.push(stream.slice(from, to));
        from = to;
      }
      expect(viaClient(chunks)).toEqual(want);
    }
  });

  it('refuses an event that grows past 8 Mi characters (a stuck server)', () => {
    const feed = createEventParser();
    const line = `data: ${'x'.repeat(1024 * 1024)}\n`;
    expect(() => {
      for (let i = 0; i < 9; i++) feed(line);
    }).toThrow(/8 Mi/);
  });
});
