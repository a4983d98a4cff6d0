import WebSocket from "ws";

/** What a gateway socket's events are told to: its Connection. */
export interface SocketEvents {
  socketMessage(data: WebSocket.RawData, isBinary: boolean): void;
  socketPing(): void;
  socketPong(): void;
  socketClosed(): void;
  socketError(error: Error): void;
}

/**
 * The `ws` socket of the gateway's server (its `WebSocket` option). Its events go straight to its
 * connection instead of through a listener each: five listeners on a socket cost it their closures and
 * a larger table of listeners than `ws` itself needs. Listeners added with `on` are still called, after
 * the connection.
 */
export class GatewaySocket extends WebSocket {
  /** Set once the socket's connection is made; before that the socket emits as any `ws` socket. */
  events: SocketEvents | undefined;

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const to = this.events;
    if (to === undefined || !deliverSocketEvent(to, event, args)) return super.emit(event, ...args);
    // An `error` with no listener of its own would make the emitter throw: the connection has it.
    if (event === "error" && this.listenerCount("error") === 0) return true;
    return super.emit(event, ...args);
  }
}

/** Hands one event of a socket to its connection; false for an event a connection does not take. */
export function deliverSocketEvent(to: SocketEvents, event: string | symbol, args: unknown[]): boolean {
  switch (event) {
    case "message":
      to.socketMessage(args[0] as WebSocket.RawData, args[1] as boolean);
      return true;
    case "ping":
      to.socketPing();
      return true;
    case "pong":
      to.socketPong();
      return true;
    case "close":
      to.socketClosed();
      return true;
    case "error":
      to.socketError(args[0] as Error);
      return true;
    default:
      return false;
  }
}
