/**
 * A `ServerResponse` as the stream hub's sink. The hub hands the same Buffer of a view's diff
 * to every stream of that view; here it becomes one HTTP/1.1 chunk, built once (cached by the
 * Buffer) and written straight to each socket, so nothing is framed again per stream.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { StreamSink } from '@svc/sse';

/** `frames` as one HTTP/1.1 chunk (`{hex length}\r\n{frames}\r\n`). */
export function httpChunk(frames: Buffer): Buffer {
  const head = `${frames.length.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafeSlow(head.length + frames.length + 2);
  chunk.write(head, 0, 'latin1');
  frames.copy(chunk, head.length);
  chunk.write('\r\n', head.length + frames.length, 'latin1');
  return chunk;
}

const chunks = new WeakMap<Buffer, Buffer>();

function chunkOf(frames: Buffer): Buffer {
  let chunk = chunks.get(frames);
  if (!chunk) chunks.set(frames, (chunk = httpChunk(frames)));
  return chunk;
}

/** A sink over `res`, whose head has been written (not yet sent: node sends it with the first write). */
export function responseSink(res: ServerResponse): StreamSink {
  /**
   * The connection, when the response owns it and is chunked (HTTP/1.1): frames go to it as
   * ready-made chunks. Otherwise (HTTP/1.0, a pipelined response waiting for its turn) they go
   * through `res.write`. Known once the head is out, after the first write.
   */
  let socket: Socket | null | undefined;
  return {
    write(frames) {
      if (socket) {
        socket.write(chunkOf(frames));
        return;
      }
      res.write(frames);
      socket ??= res.chunkedEncoding && res.socket ? res.socket : null;
    },
    get bufferedBytes() {
      return res.writableLength;
    },
    end: () => void res.end(),
    destroy() {
      if (!res.writableFinished) res.destroy();
    },
    onClose: (listener) => void res.once('close', listener),
    finished() {
      if (res.writableFinished || res.destroyed) return Promise.resolve();
      return new Promise((resolve) => {
        res.once('finish', () => resolve());
        res.once('close', () => resolve());
      });
    },
  };
}
