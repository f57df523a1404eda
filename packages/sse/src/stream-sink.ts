/**
 * Where one stream's bytes go. The hub knows views, frames and these few operations; the
 * transport (the http adapter wraps a `ServerResponse`) knows status lines, headers and framing.
 */
export interface StreamSink {
  /**
   * Writes SSE bytes. A view's diff is one Buffer handed to every stream of that view, so a
   * transport may derive its own framing of it once (e.g. cached by the Buffer) for all of them.
   */
  write(frames: Buffer): void;
  /** Bytes written but not yet taken by the connection (a reader that keeps up has next to none). */
  readonly bufferedBytes: number;
  /** Ends the stream cleanly (max age, revocation, shutdown). */
  end(): void;
  /** Drops the connection unless the stream has already ended cleanly. */
  destroy(): void;
  /** Called once when the connection closes, however it does. */
  onClose(listener: () => void): void;
  /** Resolves once the stream has ended or its connection is gone. */
  finished(): Promise<void>;
}
