import { z } from "zod";
import type { ActivitySettingsFile } from "../actors/activity/index.ts";
import type { LobbyTypesFile } from "../actors/matchmaking/index.ts";
import { parseIndexedKeys } from "../fleet/listings/index.ts";
import { natsSettings } from "./nats-settings.ts";
import { playerTokenSettings } from "./player-token-settings.ts";
import { bool, int, list } from "./setting-schemas.ts";

/**
 * The settings of a node, one table: each with its zod schema, its `FOYER_*` variable, its default and
 * its help line (the flag is derived from the name). `loadConfig` in `config.ts` reads and checks them;
 * the CLI builds its flags from them, so a setting added here is everywhere at once.
 */

/** Each setting: its schema, flag, env variable, default and help line. */
export const settings = {
  nodeId: {
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    env: "FOYER_NODE_ID",
    def: "node-1",
    help: "this node's id in the fleet",
  },
  host: { schema: z.string().min(1), env: "FOYER_HOST", def: "127.0.0.1", help: "address to listen on" },
  port: {
    schema: int(0, 65535),
    env: "FOYER_PORT",
    def: "7350",
    help: "port to listen on (0 = any free port)",
  },
  publicUrl: {
    schema: z.url().optional(),
    env: "FOYER_PUBLIC_URL",
    def: undefined,
    help: "the URL clients reach this node at (default ws://host:port/ws)",
  },
  adminHost: {
    schema: z.string().min(1),
    env: "FOYER_ADMIN_HOST",
    def: "127.0.0.1",
    help: "address the admin API (/metrics, /status, /drain) listens on; not loopback = --admin-token needed",
  },
  adminPort: {
    schema: int(0, 65535),
    env: "FOYER_ADMIN_PORT",
    def: "7351",
    help: "port of the admin API (0 = any free port)",
  },
  adminToken: {
    schema: z.string().min(16).optional(),
    env: "FOYER_ADMIN_TOKEN",
    def: undefined,
    help: "bearer token every admin request must carry (16+ characters; required off loopback)",
  },
  production: {
    schema: bool,
    env: "FOYER_PRODUCTION",
    def: "false",
    help: "production mode: no dev tokens, keys required",
  },
  tokenKeys: {
    schema: list,
    env: "FOYER_TOKEN_KEYS",
    def: "",
    help: "player token keys, kid:secret[,kid:secret] (rotation: list several)",
  },
  ...playerTokenSettings,
  sessionSecret: {
    schema: z.string(),
    env: "FOYER_SESSION_SECRET",
    def: "",
    help: "secret that signs resume tokens (shared by the cluster)",
  },
  allowedOrigins: {
    schema: list,
    env: "FOYER_ALLOWED_ORIGINS",
    def: "",
    help: "allowed browser Origins, comma separated (empty = any)",
  },
  maxConnectionsPerIp: {
    schema: int(1, 1_000_000),
    env: "FOYER_MAX_CONNECTIONS_PER_IP",
    def: "256",
    help: "sockets per client IP",
  },
  maxFrameBytes: {
    schema: int(256, 64 << 20),
    env: "FOYER_MAX_FRAME_BYTES",
    def: "65536",
    help: "largest frame a client may send",
  },
  maxBlobBytes: {
    schema: int(1, 1 << 30),
    env: "FOYER_MAX_BLOB_BYTES",
    def: "41943040",
    help: "largest document a room create or lobby start may carry (uploaded in frame-sized chunks)",
  },
  blobUploadTimeoutMs: {
    schema: int(1_000, 3_600_000),
    env: "FOYER_BLOB_UPLOAD_TIMEOUT_MS",
    def: "120000",
    help: "an upload not finished, or not given to a room, this long after its begin is deleted",
  },
  maxBufferedBytes: {
    schema: int(1024, 1 << 30),
    env: "FOYER_MAX_BUFFERED_BYTES",
    def: "1048576",
    help: "unsent bytes per socket before a slow reader is closed",
  },
  ratePerSecond: {
    schema: int(1, 1_000_000),
    env: "FOYER_RATE_PER_SECOND",
    def: "50",
    help: "frames per second per connection",
  },
  rateBurst: {
    schema: int(1, 1_000_000),
    env: "FOYER_RATE_BURST",
    def: "100",
    help: "burst of frames per connection",
  },
  helloTimeoutMs: {
    schema: int(100, 600_000),
    env: "FOYER_HELLO_TIMEOUT_MS",
    def: "10000",
    help: "time allowed before hello",
  },
  devTokens: {
    schema: bool,
    env: "FOYER_DEV_TOKENS",
    def: "false",
    help: "serve GET /dev/token even with --token-keys (a local cluster; never with --production)",
  },
  ...natsSettings,
  fleetHeartbeatMs: {
    schema: int(100, 60_000),
    env: "FOYER_FLEET_HEARTBEAT_MS",
    def: "1000",
    help: "fleet: write this node's heartbeat into NATS this often",
  },
  failureTimeoutMs: {
    schema: int(300, 600_000),
    env: "FOYER_FAILURE_TIMEOUT_MS",
    def: "3000",
    help: "fleet: a peer silent this long is declared dead and its lobbies are taken over",
  },
  drainDeadlineMs: {
    schema: int(1_000, 3_600_000),
    env: "FOYER_DRAIN_DEADLINE_MS",
    def: "120000",
    help: "fleet: a drain moves lobbies for at most this long; what is left is taken over when the node exits",
  },
  drainConcurrency: {
    schema: int(1, 1_024),
    env: "FOYER_DRAIN_CONCURRENCY",
    def: "48",
    help: "fleet: moves a drain runs at once; more drains faster, but members wait longer while theirs move",
  },
  relayAfterMoveMs: {
    schema: int(100, 600_000),
    env: "FOYER_RELAY_AFTER_MOVE_MS",
    def: "30000",
    help: "fleet: a lobby moved here is relayed this long to its members still on the node it left",
  },
  protocolBump: {
    schema: int(0, 1),
    env: "FOYER_PROTOCOL_BUMP",
    def: "0",
    help: "testing rolling deploys: speak the next protocol version too (accept its hellos, advertise it in the heartbeat)",
  },
  region: {
    schema: z.string().max(64),
    env: "FOYER_REGION",
    def: "",
    help: "fleet: this node's region, published in its heartbeat",
  },
  heartbeatMs: {
    schema: int(100, 600_000),
    env: "FOYER_HEARTBEAT_MS",
    def: "15000",
    help: "heartbeat period: a socket silent for one is pinged, dropped if silent for another",
  },
  maxRooms: {
    schema: int(0, 10_000_000),
    env: "FOYER_MAX_ROOMS",
    def: "1000",
    help: "rooms this node can run (full past it)",
  },
  maxLobbies: {
    schema: int(0, 10_000_000),
    env: "FOYER_MAX_LOBBIES",
    def: "0",
    help: "private lobbies this node holds (0 = no limit); past it a create goes to the fleet's least-loaded node, or is refused FULL",
  },
  heartbeatLimits: {
    schema: bool,
    env: "FOYER_HEARTBEAT_LIMITS",
    def: "false",
    help: "fleet: true writes --max-lobbies and --max-rooms into this node's heartbeat, so peers weigh it against its own limits; set it once every node runs this release (an earlier release does not read such a heartbeat)",
  },
  claimsCache: {
    schema: int(1, 10_000_000),
    env: "FOYER_CLAIMS_CACHE",
    def: "10000",
    help: "fleet: other nodes' claims this node caches for routing at most (least recently used go first; a miss reads the claim)",
  },
  claimsWatch: {
    schema: bool,
    env: "FOYER_CLAIMS_WATCH",
    def: "false",
    help: "fleet: true watches the whole claims bucket, as the previous release does (a full view; every claim write then reaches every node)",
  },
  codeLength: { schema: int(4, 12), env: "FOYER_CODE_LENGTH", def: "6", help: "invite code length" },
  codeAlphabet: {
    // Players type codes in any case and the node upper-cases them: a lower-case or other character
    // would make codes nobody can type; a repeated one would make some codes likelier than others.
    schema: z
      .string()
      .regex(/^[A-Z0-9]+$/, "upper-case letters and digits only")
      .refine((s) => new Set(s).size === s.length, "each character at most once"),
    env: "FOYER_CODE_ALPHABET",
    def: "ABCDEFGHJKLMNPQRSTUVWXYZ23456789",
    help: "characters invite codes are drawn from",
  },
  maxMembers: { schema: int(1, 1000), env: "FOYER_MAX_MEMBERS", def: "8", help: "members per lobby" },
  teamSizes: {
    schema: z.string().transform(parseTeamSizes),
    env: "FOYER_TEAM_SIZES",
    def: "duel:1,duo:2,trio:3,squad:4,ffa:0",
    help: "modes and their team sizes, mode:size[,mode:size]",
  },
  lobbyIndex: {
    schema: z.string().transform((raw, ctx) => {
      try {
        return parseIndexedKeys(raw);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
    env: "FOYER_LOBBY_INDEX",
    def: "",
    help: "public lobby data keys queries may filter and order on, key:string|number|boolean[,…]",
  },
  lobbyGraceSeconds: {
    schema: int(0, 86_400),
    env: "FOYER_LOBBY_GRACE_SECONDS",
    def: "10",
    help: "seat kept for a member who dropped outside a room",
  },
  failoverGraceSeconds: {
    schema: int(0, 3_600),
    env: "FOYER_FAILOVER_GRACE_SECONDS",
    def: "60",
    help: "after a failover, seat kept for a member not back yet (covers the SDK's 45 s liveness)",
  },
  reconnectGraceSeconds: {
    schema: int(0, 86_400),
    env: "FOYER_RECONNECT_GRACE_SECONDS",
    def: "30",
    help: "seat kept for a member who dropped during a room",
  },
  returnAfterEndSeconds: {
    schema: int(0, 3_600),
    env: "FOYER_RETURN_AFTER_END_SECONDS",
    def: "5",
    help: "delay between a room's end and the return to the lobby",
  },
  botSeatIdBase: {
    schema: int(0, 1_000_000),
    env: "FOYER_BOT_SEAT_ID_BASE",
    def: "50",
    help: "first seat id of bots",
  },
  tlsCert: {
    schema: z.string().optional(),
    env: "FOYER_TLS_CERT",
    def: undefined,
    help: "PEM certificate file for wss:// (or end TLS at a proxy)",
  },
  tlsKey: {
    schema: z.string().optional(),
    env: "FOYER_TLS_KEY",
    def: undefined,
    help: "PEM key file for wss://",
  },
  activitiesFile: {
    schema: z.string().min(1).optional(),
    env: "FOYER_ACTIVITIES_FILE",
    def: undefined,
    help: "JSON file of the activities players may join (default: a small example set)",
  },
  lobbyTypesFile: {
    schema: z.string().min(1).optional(),
    env: "FOYER_LOBBY_TYPES_FILE",
    def: undefined,
    help: "JSON file of the matchmaking lobby types (default: the built-in CursorPartyV2)",
  },
  filtersModule: {
    schema: z.string().min(1).optional(),
    env: "FOYER_FILTERS_MODULE",
    def: undefined,
    help: "module whose default export names the matchmaking filters (run in a worker pool)",
  },
  logLevel: {
    schema: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    env: "FOYER_LOG_LEVEL",
    def: "info",
    help: "log level",
  },
} as const;

/** A setting's name. */
export type SettingName = keyof typeof settings;

/** Every setting's validated value. */
export type SettingValues = { [K in SettingName]: z.output<(typeof settings)[K]["schema"]> };

/** A validated node configuration: the settings, and what the files they name hold. */
export type NodeConfig = SettingValues & {
  /** The activities of the `activitiesFile` setting (the example set without one), validated. */
  readonly activities: ActivitySettingsFile;
  /** The lobby types of the `lobbyTypesFile` setting (the example without one), validated. */
  readonly lobbyTypes: LobbyTypesFile;
};

function parseTeamSizes(raw: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [mode, size] = pair.split(":");
    const n = Number(size);
    if (!mode || !/^[a-z0-9_-]{1,32}$/i.test(mode) || !Number.isInteger(n) || n < 0 || n > 64) {
      throw new Error(`"${pair}" is not mode:size`);
    }
    out[mode] = n;
  }
  return out;
}
