import { createNodeClient, type FoyerClient } from "../../gateway/index.ts";

/** Where a fleet client connects and how long it gives a call. */
export interface FleetClientOptions {
  /** The nodes in the order the client tries them: the first is where it lands. */
  readonly urls: string[];
  readonly token: string;
  readonly callTimeoutMs: number;
  readonly connectTimeoutMs?: number;
}

/**
 * An SDK client of a fleet that loses or drains nodes: it reconnects within 50–500 ms, so a member whose
 * node went is back soon after a survivor serves its lobby. Connected, and kept in `clients` so the
 * caller closes it with the others.
 */
export async function connectFleetClient(
  clients: FoyerClient[],
  options: FleetClientOptions,
): Promise<FoyerClient> {
  const client = createNodeClient({ ...options, reconnectMinMs: 50, reconnectMaxMs: 500 });
  clients.push(client);
  await client.connect();
  return client;
}
