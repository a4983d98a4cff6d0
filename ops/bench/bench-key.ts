import { signPlayerToken } from "../../gateway/index.ts";

/** The token key a bench's nodes trust and its players' tokens are signed with: a bench guards nothing. */
export const benchKey = { id: "bench", secret: "bench-secret-0123456789abcdef" } as const;

/** `benchKey` as the `tokenKeys` setting (`--token-keys`) names it. */
export const benchTokenKeys = `${benchKey.id}:${benchKey.secret}`;

/** A token of `player`, shown as `name`, valid for an hour. */
export function benchToken(player: string, name: string = player): string {
  return signPlayerToken({ sub: player, name, exp: Math.floor(Date.now() / 1000) + 3600 }, benchKey);
}

/**
 * Settings (as `loadConfig` takes them) that lift a node's request rate and per-address connection
 * limits: every client of a bench comes from 127.0.0.1, and the bench measures the node, not its limits.
 */
export const unlimitedClients = {
  ratePerSecond: "1000000",
  rateBurst: "1000000",
  maxConnectionsPerIp: "100000",
} as const;

/**
 * The same lifted limits as a node process's flags (`startNodeProcess`), with no lobby grace (a bench's
 * lobbies close as their last player leaves) and no log lines.
 */
export const benchNodeFlags = {
  "rate-per-second": unlimitedClients.ratePerSecond,
  "rate-burst": unlimitedClients.rateBurst,
  "max-connections-per-ip": unlimitedClients.maxConnectionsPerIp,
  "lobby-grace-seconds": "0",
  "log-level": "silent",
} as const;
