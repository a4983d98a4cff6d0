import type { FoyerEvents, RequestBody } from "./client-types.ts";

/** How a part of the client sends a call and tells the client's listeners (the client's own methods). */
export interface ClientPartDeps {
  /** Sends a request and waits for its answer (`ClientConnection.call`). */
  readonly call: (body: RequestBody, timeoutMs?: number) => Promise<unknown>;
  /** Tells the client's listeners. */
  readonly emit: <K extends keyof FoyerEvents>(event: K, payload: FoyerEvents[K]) => void;
}
