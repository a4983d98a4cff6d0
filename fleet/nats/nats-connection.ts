import {
  type Authenticator,
  type ConnectionOptions,
  Events,
  type NatsConnection,
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
} from "nats";
import { NatsVersionError, assertNatsVersion } from "./nats-version.ts";
import { skipErrorsOfSettledRequests } from "./nats-settled-requests.ts";
import { coalesceNatsWrites } from "./nats-write-coalescing.ts";

/** JetStream request timeout for KV operations: short, since a timed-out write is read back anyway. */
export const defaultJetStreamTimeoutMs = 1_000;

/** TLS to the NATS servers, as PEM text (the settings name files, read at the start). */
export interface NatsTls {
  /** The CA certificates the servers' certificates must chain to (default: Node's own list). */
  readonly ca?: string;
  /** A client certificate and its key, for servers that verify their clients (both or neither). */
  readonly cert?: string;
  readonly key?: string;
}

/**
 * The credentials a NATS server may ask for: a user and password, a token, an NKey seed (the `SU…`
 * line of `nk -gen user`), or a `.creds` file's text (operator mode); and the TLS to reach it with, when
 * it takes TLS.
 */
export interface NatsAuth {
  readonly user?: string;
  readonly pass?: string;
  readonly token?: string;
  readonly nkeySeed?: string;
  /**
   * The text of a `.creds` file, for servers in operator mode: a user JWT (sent to the server, which
   * checks its account's signature and revocations) and the user's NKey seed (signs the server's nonce).
   */
  readonly creds?: string;
  /** Set: the connection must be TLS (a server that offers none is refused), verified against `ca`. */
  readonly tls?: NatsTls;
}

/** How the fleet connects to NATS. */
export interface NatsConnectOptions extends NatsAuth {
  /** `nats://host:port` URLs; the first reachable one is used, the rest for reconnecting. */
  readonly servers: string | readonly string[];
  /** Shown in the server's connection list (`nodeId` and role, say). */
  readonly name?: string;
  /** Keep retrying the first connect until a server answers (default true: servers may start after us). */
  readonly waitOnFirstConnect?: boolean;
  /** Ping the server this often, so a dead server is noticed within about 2 × this (default 2 s). */
  readonly pingIntervalMs?: number;
  /** Called when a reconnect lands on a server older than 2.10; the connection is then closed. */
  readonly onRefused?: (error: NatsVersionError) => void;
  /** Any other nats.js option, applied last (tests use it to pin a connection to one server). */
  readonly natsOptions?: ConnectionOptions;
}

/** NATS refused the connection for a reason waiting will not cure: its TLS or the credentials. */
export class NatsRefusedError extends Error {
  override readonly name = "NatsRefusedError";
}

/** nats.js's codes for a refusal of the credentials or of TLS (a client that wants TLS, a server without). */
const lastingCodes = new Set(["AUTHORIZATION_VIOLATION", "AUTHENTICATION_EXPIRED", "TLS", "SERVER_OPT_NA"]);

/** The reason of a first connect's failure that waiting will not cure, or undefined (a server not up yet). */
function lastingRefusal(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return undefined;
  // Node's TLS errors: a certificate not trusted, expired or for another host; a key that is not the
  // certificate's.
  const tls = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|ERR_OSSL/.test(code);
  if (!lastingCodes.has(code) && !tls) return undefined;
  if (code === "SERVER_OPT_NA") return "the server offers no TLS, and this connection asks for it";
  return `${error.message} (${code})`;
}

/**
 * Connects with the settings the fleet needs (NATS-NOTES, "nats.js 2.29 pitfalls"): reconnect forever,
 * notice a dead server within ~4 s, wait for the first server. Refuses a server older than 2.10, at connect
 * and again after every reconnect, because compare-and-set is not safe there (nats-version.ts).
 *
 * Waiting for the first server retries every failure alike, silently: a node whose TLS or credentials the
 * servers refuse would wait forever. So the first attempt is made once, and such a refusal ends the
 * connect with a NatsRefusedError that gives the reason; anything else (no server up yet) is waited for.
 * A server that drops a client without the certificate it asks for shows only as a timeout, and is waited
 * for too.
 */
export async function connectNats(options: NatsConnectOptions): Promise<NatsConnection> {
  coalesceNatsWrites();
  skipErrorsOfSettledRequests();
  const settings = connectionOptionsOf(options);
  let nc: NatsConnection;
  try {
    nc = await connect({ ...settings, waitOnFirstConnect: false });
  } catch (error) {
    const refusal = lastingRefusal(error);
    if (refusal !== undefined) {
      throw new NatsRefusedError(`NATS refused this connection: ${refusal}`, { cause: error });
    }
    if (settings.waitOnFirstConnect !== true) throw error;
    nc = await connect(settings);
  }
  try {
    assertNatsVersion(nc.info?.version ?? "unknown");
  } catch (error) {
    await nc.close();
    throw error;
  }
  void refuseOldServersOnReconnect(nc, options.onRefused);
  return nc;
}

function connectionOptionsOf(options: NatsConnectOptions): ConnectionOptions {
  return {
    servers: typeof options.servers === "string" ? options.servers : [...options.servers],
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: options.pingIntervalMs ?? 2_000,
    maxPingOut: 2,
    waitOnFirstConnect: options.waitOnFirstConnect ?? true,
    // nats.js otherwise makes two Errors per request for their async stack, and formats it into every
    // failed one: after a failover, each no-responders answer cost more than its request (docs/fleet.md).
    noAsyncTraces: true,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.user === undefined ? {} : { user: options.user }),
    ...(options.pass === undefined ? {} : { pass: options.pass }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...authenticatorOption(options),
    ...(options.tls === undefined ? {} : { tls: { ...options.tls } }),
    ...options.natsOptions,
  };
}

/**
 * A `.creds` file's user JWT goes to the server and its seed signs the nonce; an NKey seed signs the
 * nonce alone; user, password and token go as they are.
 */
function authenticatorOption(auth: NatsAuth): { authenticator?: Authenticator } {
  if (auth.creds !== undefined) {
    return { authenticator: credsAuthenticator(new TextEncoder().encode(auth.creds)) };
  }
  if (auth.nkeySeed === undefined) return {};
  return { authenticator: nkeyAuthenticator(new TextEncoder().encode(auth.nkeySeed.trim())) };
}

/** A cluster can hold servers of several versions: check again whenever the connection moves. */
async function refuseOldServersOnReconnect(
  nc: NatsConnection,
  onRefused: ((error: NatsVersionError) => void) | undefined,
): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type !== Events.Reconnect) continue;
    try {
      assertNatsVersion(nc.info?.version ?? "unknown");
    } catch (error) {
      if (!(error instanceof NatsVersionError)) throw error;
      onRefused?.(error);
      await nc.close();
      return;
    }
  }
}
