import type WebSocket from "ws";

interface Corkable {
  cork(): void;
  uncork(): void;
}

/** Who is told when a socket's reader does not keep up: its connection, which closes it. */
export interface SlowReader {
  tooSlow(): void;
}

/**
 * The outgoing side of one socket. Frames sent in one turn of the event loop (a push, then the result it
 * answered) leave in one write: the socket is corked at the first and uncorked after the turn's promise
 * continuations have run. It also enforces the bound on unsent bytes that closes a slow reader.
 */
export class SocketSender {
  private corked = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly maxBufferedBytes: number,
    /** Told when the unsent bytes pass the bound (an object, not a closure a socket). */
    private readonly reader: SlowReader,
  ) {}

  /** Queues a frame; the bound is checked once the kernel has been offered everything queued. */
  send(data: Uint8Array | string): void {
    this.cork();
    this.ws.send(data);
    // While corked, bufferedAmount also counts this turn's frames that were never offered to the kernel:
    // a fast reader's legal burst would look like a backlog. The uncork below checks instead.
    if (!this.corked) this.check();
  }

  private cork(): void {
    if (this.corked) return;
    const socket = (this.ws as unknown as { _socket?: Corkable })._socket;
    if (!socket) return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
      this.check();
    });
  }

  /** Unsent bytes past the bound after the kernel took what it could: the reader is not keeping up. */
  private check(): void {
    if (this.ws.bufferedAmount > this.maxBufferedBytes) this.reader.tooSlow();
  }
}
