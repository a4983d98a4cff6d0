import { createNodeClient } from "../../gateway/client/node.ts";
import type { FoyerClient } from "../../gateway/client/index.ts";

/**
 * A drain bench's SDK client: it reconnects within 20–500 ms (a moved member is back at once) and gives
 * a call 30 s, so a request held through a move is timed, not failed.
 */
export function drainClient(urls: readonly string[], token: string): FoyerClient {
  return createNodeClient({
    urls: [...urls],
    token,
    reconnectMinMs: 20,
    reconnectMaxMs: 500,
    callTimeoutMs: 30_000,
  });
}
