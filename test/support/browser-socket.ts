import WebSocket from "ws";
import type { SocketLike } from "../../gateway/client/index.ts";

/**
 * A `ws` socket that shows the SDK only what a browser's WebSocket shows: no `ping()`, no control-frame
 * events. The SDK then pings in-band with `ping` frames, as it does in a browser.
 */
export class BrowserLikeSocket implements SocketLike {
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  private readonly inner: WebSocket;

  constructor(url: string) {
    this.inner = new WebSocket(url);
    this.inner.binaryType = "arraybuffer";
    this.inner.onopen = (ev) => this.onopen?.(ev);
    this.inner.onmessage = (ev) => {
      this.received(ev.data);
    };
    this.inner.onclose = (ev) => this.onclose?.({ code: ev.code, reason: ev.reason });
    this.inner.onerror = (ev) => this.onerror?.(ev);
  }

  get binaryType(): string {
    return this.inner.binaryType;
  }

  set binaryType(value: string) {
    this.inner.binaryType = value as "arraybuffer";
  }

  get readyState(): number {
    return this.inner.readyState;
  }

  send(data: Uint8Array | string): void {
    this.inner.send(data);
  }

  /** A frame from the node, handed to the SDK (a subclass may lose it). */
  protected received(data: unknown): void {
    this.onmessage?.({ data });
  }

  close(code?: number, reason?: string): void {
    this.inner.close(code, reason);
  }
}
