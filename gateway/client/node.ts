import WebSocket from "ws";
import { FoyerClient, type FoyerClientOptions, type SocketLike } from "./foyer-client.ts";

/** A FoyerClient for Node, on the `ws` package (Node 20 has no global WebSocket). */
export function createNodeClient(options: Omit<FoyerClientOptions, "WebSocket">): FoyerClient {
  return new FoyerClient({ ...options, WebSocket: WebSocket as unknown as new (url: string) => SocketLike });
}

/** Fetches a dev-mode token from a node started with `npm start` (dev mode only). */
export async function fetchDevToken(httpUrl: string, name: string, player?: string): Promise<string> {
  const url = new URL("/dev/token", httpUrl);
  url.searchParams.set("name", name);
  if (player) url.searchParams.set("player", player);
  const res = await fetch(url);
  if (!res.ok) throw new Error(`dev token: HTTP ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}
