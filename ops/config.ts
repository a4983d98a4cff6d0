import type { z } from "zod";
import { lobbyOptionsSchema } from "../actors/lobby/index.ts";
import { defaultResultSessions } from "../actors/runtime/index.ts";
import { readActivities } from "./activities.ts";
import { isLoopbackHost } from "./node/loopback-host.ts";
import { readLobbyTypes } from "./lobby-types.ts";
import { settings, type NodeConfig, type SettingValues } from "./settings.ts";

export { settings, type NodeConfig, type SettingName } from "./settings.ts";

/**
 * A node's configuration: every setting has a flag, an environment variable and a default, and is
 * validated with zod; a bad value stops the node with an error that names the setting.
 */

/** Why a configuration was refused: the setting, its flag and env names, and what is wrong. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The lobby's own schema decides the lobby limits; a refusal names the setting it came from. */
function checkLobbyLimits(config: NodeConfig): void {
  const checked = lobbyOptionsSchema.safeParse({
    codeLength: config.codeLength,
    codeAlphabet: config.codeAlphabet,
    maxMembers: config.maxMembers,
    teamSizes: config.teamSizes,
    botSeatIdBase: config.botSeatIdBase,
    returnAfterEndSeconds: config.returnAfterEndSeconds,
    reconnectGraceSeconds: config.reconnectGraceSeconds,
    lobbyGraceSeconds: config.lobbyGraceSeconds,
    failoverGraceSeconds: config.failoverGraceSeconds,
  });
  if (checked.success) return;
  const issue = checked.error.issues[0];
  const name = String(issue?.path[0] ?? "lobby");
  const setting = (settings as Record<string, { env: string } | undefined>)[name];
  throw new ConfigError(
    name,
    `invalid setting ${flagOf(name)}${setting ? ` (${setting.env})` : ""}: ${issue?.message ?? "invalid"}`,
  );
}

/**
 * A node needs a way to check player tokens in production; a provider's keys come from one place, over
 * TLS, and with an issuer to check (a provider's key set, Firebase's for one, signs for many tenants).
 */
function checkPlayerTokenKeys(config: NodeConfig): void {
  const jwks = config.jwksUrl !== undefined || config.jwksFile !== undefined;
  if (config.jwksUrl !== undefined && config.jwksFile !== undefined) {
    throw new ConfigError(
      "jwksFile",
      "give --jwks-url (FOYER_JWKS_URL) or --jwks-file (FOYER_JWKS_FILE), not both",
    );
  }
  if (!config.production) return;
  if (config.tokenKeys.length === 0 && !jwks) {
    throw new ConfigError(
      "tokenKeys",
      "production mode needs --token-keys (FOYER_TOKEN_KEYS) or --jwks-url/--jwks-file: refusing to start without a key to check player tokens",
    );
  }
  if (config.jwksUrl?.startsWith("http:") && !isLoopbackHost(new URL(config.jwksUrl).hostname)) {
    throw new ConfigError("jwksUrl", "production mode needs an https:// --jwks-url (FOYER_JWKS_URL)");
  }
  if (jwks && config.tokenIssuer.length === 0) {
    throw new ConfigError(
      "tokenIssuer",
      "production mode with a JWKS needs --token-issuer (FOYER_TOKEN_ISSUER): the provider's keys may sign for others too",
    );
  }
}

/**
 * How many sessions' answers each actor keeps for retries (docs/protocol.md, "Exactly once"): the
 * runtime's default, or twice `maxMembers` when lobbies are larger, so that every member of a full lobby
 * acting at once, and as many others, still find their answers.
 */
export function resultSessionsOf(config: Pick<NodeConfig, "maxMembers">): number {
  return Math.max(defaultResultSessions, 2 * config.maxMembers);
}

/** The flag of a setting: `maxFrameBytes` → `--max-frame-bytes`. */
export function flagOf(name: string): string {
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Builds the configuration from flags (already parsed, by setting name), the environment and defaults.
 * Throws ConfigError naming the first bad setting; enforces production rules (keys and secrets present).
 */
export function loadConfig(flags: Partial<Record<string, string>>, env: NodeJS.ProcessEnv): NodeConfig {
  const out: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(settings)) {
    const raw = flags[name] ?? env[setting.env] ?? setting.def;
    if (raw === undefined) continue;
    let parsed;
    try {
      parsed = (setting.schema as z.ZodType).safeParse(raw);
    } catch (error) {
      throw new ConfigError(
        name,
        `invalid setting ${flagOf(name)} (${setting.env}): ${(error as Error).message}`,
      );
    }
    if (!parsed.success) {
      const why = parsed.error.issues[0]?.message ?? "invalid";
      throw new ConfigError(name, `invalid setting ${flagOf(name)} (${setting.env}) = "${raw}": ${why}`);
    }
    out[name] = parsed.data;
  }
  const values = out as SettingValues;
  const read = readActivities(values.activitiesFile);
  if (!read.ok) {
    throw new ConfigError(
      "activitiesFile",
      `invalid setting --activities-file (FOYER_ACTIVITIES_FILE) = "${values.activitiesFile ?? ""}": ${read.why}`,
    );
  }
  const types = readLobbyTypes(values.lobbyTypesFile);
  if (!types.ok) {
    throw new ConfigError(
      "lobbyTypesFile",
      `invalid setting --lobby-types-file (FOYER_LOBBY_TYPES_FILE) = "${values.lobbyTypesFile ?? ""}": ${types.why}`,
    );
  }
  const config: NodeConfig = { ...values, activities: read.activities, lobbyTypes: types.value };
  for (const key of config.tokenKeys) {
    if (!/^[^:]+:.{16,}$/.test(key)) {
      throw new ConfigError(
        "tokenKeys",
        `invalid setting --token-keys (FOYER_TOKEN_KEYS): each key is kid:secret with a secret of 16+ characters`,
      );
    }
  }
  checkPlayerTokenKeys(config);
  if (config.production) {
    if (config.sessionSecret.length < 16) {
      throw new ConfigError(
        "sessionSecret",
        "production mode needs --session-secret (FOYER_SESSION_SECRET) of 16+ characters",
      );
    }
  }
  checkLobbyLimits(config);
  if (config.failureTimeoutMs < 3 * config.fleetHeartbeatMs) {
    // The lease ends a heartbeat before the timeout, and a peer must see at least two heartbeats in it.
    throw new ConfigError(
      "failureTimeoutMs",
      "--failure-timeout-ms must be at least 3 × --fleet-heartbeat-ms (a live node would be declared dead)",
    );
  }
  if (config.adminToken === undefined && !isLoopbackHost(config.adminHost)) {
    throw new ConfigError(
      "adminToken",
      `--admin-host ${config.adminHost} is not a loopback address: the admin API (drain, metrics) needs --admin-token (FOYER_ADMIN_TOKEN)`,
    );
  }
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    throw new ConfigError("tlsCert", "--tls-cert and --tls-key go together");
  }
  return config;
}
