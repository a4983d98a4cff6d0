import { randomBytes } from "node:crypto";
import { signPlayerToken } from "../gateway/auth/player-token.ts";
import type { FoyerClient } from "../gateway/client/index.ts";
import { decodeClaim, decodeNodeRecord, isTombstone, NatsKvStore, connectNats } from "../fleet/index.ts";
import { drainUntilAccepted, type DrainSummary } from "./admin/index.ts";
import { connectFleetClient } from "./bench/fleet-client.ts";
import { startNats } from "./nats/index.ts";
import { startNodeProcess, type NodeProcess } from "./node/node-process.ts";

/** Options of `foyer rolling-restart`. */
export interface RollingRestartOptions {
  readonly nodes: number;
  readonly nats: number;
  /** Lobbies of two members spread over the nodes; their guests keep toggling ready throughout. */
  readonly lobbies: number;
  /**
   * Restart each node as "the next release": one that also speaks PROTOCOL_VERSION+1 (`--protocol-bump
   * 1`), so two releases run side by side until the last node is restarted. Snapshot schemas do not
   * change: only the protocol version is simulated.
   */
  readonly nextProtocol?: boolean;
  readonly json: boolean;
}

/** What `foyer rolling-restart` reports. Every count of trouble must be 0. */
export interface RollingRestartResult {
  readonly nodes: number;
  readonly lobbies: number;
  /** The drain of each node, in the order they were restarted. */
  readonly drains: readonly DrainSummary[];
  /** Acknowledged ready toggles during the whole run. */
  readonly acks: number;
  /** Lobbies with no claim, or not seen by both members afterwards. */
  readonly lostLobbies: number;
  /** Lobbies whose last acknowledged ready flag is not what the members see afterwards. */
  readonly lostAcks: number;
  /** Requests that failed at the SDK's caller (the SDK retries on its own before that). */
  readonly errors: number;
  readonly errorMessages: readonly string[];
  /** The protocol versions the live nodes' heartbeats advertised after each restart (two while mixed). */
  readonly protocolsSeen: readonly (readonly number[])[];
  readonly ok: boolean;
}

/**
 * `foyer rolling-restart`: starts its own local fleet (like `foyer cluster`: `nats` nats-servers and
 * `nodes` node processes), puts a small SDK load on it — lobbies of two members whose guests keep
 * toggling ready — then drains and restarts each node in turn (same id, same ports, a new process),
 * and reports lost lobbies, lost acknowledgements and errors seen by callers: all must be 0.
 */
export async function runRollingRestart(options: RollingRestartOptions): Promise<RollingRestartResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const nats = await startNats({ servers: options.nats });
  const key = { id: "rr", secret: randomBytes(24).toString("base64url") };
  const sessionSecret = randomBytes(24).toString("base64url");
  const start = (id: string, ports: NodePorts, next = false): NodeProcess =>
    startNodeProcess({
      id,
      natsUrls: nats.urls,
      natsReplicas: Math.min(3, options.nats),
      tokenKeys: `${key.id}:${key.secret}`,
      sessionSecret,
      flags: {
        port: ports.port,
        "admin-port": ports.admin,
        "max-connections-per-ip": "100000",
        ...(next ? { "protocol-bump": "1" } : {}),
      },
    });
  const live: NodeProcess[] = [];
  const clients: FoyerClient[] = [];
  try {
    const ports: NodePorts[] = [];
    for (let i = 1; i <= options.nodes; i++) {
      const node = start(`n${i}`, { port: "0", admin: "0" });
      live.push(node);
      ports.push({ port: portOf(await node.url), admin: portOf(await node.admin) });
    }
    const urls = await Promise.all(live.map((n) => n.url));
    const admins = await Promise.all(live.map((n) => n.admin));
    say(
      `rolling restart: ${options.nats} nats-servers, ${options.nodes} nodes, ${options.lobbies} lobbies under load`,
    );
    const connect = (player: string, first: number): Promise<FoyerClient> =>
      connectFleetClient(clients, {
        urls: [...urls.slice(first), ...urls.slice(0, first)],
        token: signPlayerToken({ sub: player, name: player, exp: Math.floor(Date.now() / 1000) + 3600 }, key),
        callTimeoutMs: 30_000,
      });
    const lobbies = await makeLobbies(connect, options);
    const load = startLoad(lobbies);
    const { drains, protocolsSeen } = await restartEach(live, ports, admins, {
      restart: (id, port) => start(id, port, options.nextProtocol === true),
      natsUrls: nats.urls,
      say,
    });
    await load.stop();
    const { lostLobbies, lostAcks } = await auditLobbies(nats.urls, lobbies);
    const { acks, errorMessages } = load;
    const result: RollingRestartResult = {
      nodes: options.nodes,
      lobbies: options.lobbies,
      drains,
      acks,
      lostLobbies,
      lostAcks,
      errors: errorMessages.length,
      errorMessages: errorMessages.slice(0, 20),
      protocolsSeen,
      ok:
        lostLobbies === 0 &&
        lostAcks === 0 &&
        errorMessages.length === 0 &&
        drains.every((d) => d.state === "done" || d.state === "exited"),
    };
    say(
      `  ${acks} acknowledged changes; lost lobbies ${lostLobbies}, lost acks ${lostAcks}, errors ${errorMessages.length}: ${result.ok ? "OK" : "FAILED"}`,
    );
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    for (const c of clients) c.close();
    for (const n of live) n.child.kill("SIGKILL");
    await Promise.all(live.map((n) => n.exited));
    await nats.stop();
  }
}

/** A lobby of the load: its two members and the ready flag last acknowledged to the guest. */
interface LoadLobby {
  readonly host: FoyerClient;
  readonly guest: FoyerClient;
  readonly code: string;
  ready: boolean;
}

/** A node's game and admin ports, kept so its restart listens where it did. */
interface NodePorts {
  readonly port: string;
  readonly admin: string;
}

/** The lobbies of two members, spread over the nodes by where their members first connect. */
function makeLobbies(
  connect: (player: string, first: number) => Promise<FoyerClient>,
  options: RollingRestartOptions,
): Promise<LoadLobby[]> {
  return Promise.all(
    Array.from({ length: options.lobbies }, async (_, i) => {
      const host = await connect(`rr-host-${i}`, i % options.nodes);
      const guest = await connect(`rr-guest-${i}`, i % options.nodes);
      const { code } = await host.create();
      await guest.join(code);
      return { host, guest, code, ready: false };
    }),
  );
}

/** Every guest toggles its ready flag every 50 ms until `stop()`; acks and errors counted. */
function startLoad(lobbies: readonly LoadLobby[]): {
  readonly acks: number;
  readonly errorMessages: string[];
  stop(): Promise<void>;
} {
  const errorMessages: string[] = [];
  let acks = 0;
  let loading = true;
  const load = lobbies.map(async (lobby) => {
    while (loading) {
      const next = !lobby.ready;
      try {
        await lobby.guest.ready(next);
        lobby.ready = next;
        acks++;
      } catch (error) {
        errorMessages.push(`${lobby.code}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return {
    get acks() {
      return acks;
    },
    errorMessages,
    async stop() {
      loading = false;
      await Promise.all(load);
    },
  };
}

/** Drains each node in turn, restarts it on its ports, and reads the protocols the fleet advertises. */
async function restartEach(
  live: NodeProcess[],
  ports: readonly NodePorts[],
  admins: readonly string[],
  how: {
    restart: (id: string, port: NodePorts) => NodeProcess;
    natsUrls: readonly string[];
    say: (line: string) => void;
  },
): Promise<{ drains: DrainSummary[]; protocolsSeen: number[][] }> {
  const drains: DrainSummary[] = [];
  const protocolsSeen: number[][] = [];
  for (let i = 0; i < live.length; i++) {
    const node = live[i];
    const port = ports[i];
    if (node === undefined || port === undefined) continue;
    const { summary } = await drainUntilAccepted(node.id, { admin: admins[i] ?? "", pollMs: 100 });
    drains.push(summary);
    const code = await node.exited;
    how.say(
      `  ${node.id}: ${summary.state}, ${summary.moved} keys moved in ${summary.seconds.toFixed(1)} s, exit ${code}`,
    );
    const next = how.restart(node.id, port);
    live[i] = next;
    await next.url;
    // The restarted node takes keys once its heartbeat is seen: the next drain needs it as a target.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    protocolsSeen.push(await advertisedProtocols(how.natsUrls));
  }
  return { drains, protocolsSeen };
}

/** Every lobby: claimed, seen by both members with the last acknowledged flag. */
async function auditLobbies(
  natsUrls: readonly string[],
  lobbies: readonly LoadLobby[],
): Promise<{ lostLobbies: number; lostAcks: number }> {
  const claimed = await claimedLobbies(
    natsUrls,
    lobbies.map((l) => l.code),
  );
  let lostLobbies = 0;
  let lostAcks = 0;
  await settle(() =>
    lobbies.every((l) => l.host.lobby?.members[1]?.ready === l.ready && l.guest.lobby?.code === l.code),
  );
  for (const lobby of lobbies) {
    const seen = [lobby.host.lobby, lobby.guest.lobby];
    if (!claimed.has(lobby.code) || seen.some((view) => view?.code !== lobby.code)) {
      lostLobbies++;
      continue;
    }
    if (seen.some((view) => view?.members[1]?.ready !== lobby.ready)) lostAcks++;
  }
  return { lostLobbies, lostAcks };
}

function portOf(url: string): string {
  return new URL(url).port;
}

/** The protocol versions the live nodes' heartbeats advertise, sorted, without repeats. */
async function advertisedProtocols(servers: readonly string[]): Promise<number[]> {
  const nc = await connectNats({ servers: [...servers] });
  try {
    const nodes = await new NatsKvStore(nc).bucket("nodes");
    const seen = new Set<number>();
    for (const key of await nodes.keys()) {
      const entry = await nodes.get(key);
      if (entry === null) continue;
      const record = decodeNodeRecord(entry.value);
      if (!isTombstone(record)) seen.add(record.protocol);
    }
    return [...seen].sort((a, b) => a - b);
  } finally {
    await nc.close();
  }
}

async function claimedLobbies(servers: readonly string[], codes: readonly string[]): Promise<Set<string>> {
  const nc = await connectNats({ servers: [...servers] });
  try {
    const claims = await new NatsKvStore(nc).bucket("claims");
    const found = new Set<string>();
    for (const code of codes) {
      const entry = await claims.get(`lobby/${code}`);
      if (entry !== null) {
        decodeClaim(entry.value);
        found.add(code);
      }
    }
    return found;
  } finally {
    await nc.close();
  }
}

/** Waits (up to 15 s) for the members' views to catch up with the last acknowledged changes. */
async function settle(done: () => boolean): Promise<void> {
  for (let waited = 0; waited < 15_000 && !done(); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
