import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { TokenKey } from "../../gateway/index.ts";
import type { NodeConfig } from "../config.ts";
import { isLoopbackHost } from "./loopback-host.ts";

/** True when the node runs in dev mode: not production and no token keys, so it signs tokens for anyone. */
export function isDevMode(
  config: Pick<NodeConfig, "production" | "tokenKeys" | "devTokens" | "jwksUrl" | "jwksFile">,
): boolean {
  // A local cluster shares one key between its nodes and still hands out dev tokens (`--dev-tokens`).
  return !config.production && ((config.tokenKeys.length === 0 && !hasKeySet(config)) || config.devTokens);
}

/** True when the node checks tokens with a provider's keys (`--jwks-url`, `--jwks-file`). */
function hasKeySet(config: Pick<NodeConfig, "jwksUrl" | "jwksFile">): boolean {
  return config.jwksUrl !== undefined || config.jwksFile !== undefined;
}

/**
 * The keys that check player tokens: the configured ones, or in dev mode a made-up one. Dev mode is
 * logged loudly, and louder still when the node listens beyond this machine — anyone who can reach it
 * can mint a token for any player. It still starts: dev mode on a LAN is how people play-test.
 */
export function tokenKeysOf(config: NodeConfig, log: Logger): TokenKey[] {
  const keys = config.tokenKeys.map((pair) => {
    const at = pair.indexOf(":");
    return { id: pair.slice(0, at), secret: pair.slice(at + 1) };
  });
  // A node that checks its provider's tokens needs no key of its own, and makes none up.
  if (keys.length > 0 || hasKeySet(config)) return keys;
  log.warn(
    "DEV MODE: no --token-keys given, so this node made up a key and issues player tokens to anyone at GET /dev/token. " +
      "Never expose it; production nodes (--production) refuse to start without keys.",
  );
  if (!config.production && !isLoopbackHost(config.host)) {
    log.error(
      { host: config.host },
      `!!! DEV MODE ON A NON-LOOPBACK ADDRESS (${config.host}) !!! Anyone who can reach this port can mint ` +
        "a token for ANY player at GET /dev/token and act as them. Use it for local play only; listen on " +
        "127.0.0.1, or give --token-keys and run with --production.",
    );
  }
  return [{ id: "dev", secret: randomBytes(32).toString("base64url") }];
}
