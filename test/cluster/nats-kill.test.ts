import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { NatsConnection } from "nats";
import { type FoyerClient, isFoyerError, type SocketLike } from "../../gateway/client/index.ts";
import { decodeServerFrame } from "../../gateway/protocol/codec.ts";
import { isRetryable, type ErrorCode } from "../../actors/runtime/index.ts";
import { connectNats } from "../../fleet/index.ts";
import { eventually } from "../support/node.ts";
import { snapshotStreamOf } from "../support/snapshot-streams.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Kill one of three nats-servers (kill -9) under a steady load of SDK lobby ops on three Foyer
 * node processes — the stream leader of the `lobbies` bucket, and separately a server that leads no
 * stream and not the meta group. While NATS re-elects, changes are refused as retryable and the SDK
 * retries them; every op the SDK reported acknowledged must be in the final state, and no call may fail.
 * The killed server is restarted afterwards.
 *
 * The load: 10 pairs of bots (20 SDK clients, host and guest on different nodes, so joins follow a
 * redirect) loop create → join → guest ready → host ready → guest unready → guest leave → host leave
 * (which closes the lobby). Each pair keeps a model of its lobby, changed only by acknowledged ops.
 */

const pairs = 10;
const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  monitoring: true,
  flags: { "rate-per-second": "100000", "rate-burst": "100000" },
});
const { urls } = fleet;
const nats = fleet.nats;

/** Messages of UNAVAILABLE refusals given before the kill, on a healthy cluster (for the report). */
const healthyRefusals = new Set<string>();
/** When UNAVAILABLE refusals arrived, ms after the kill (for the report). */
const unavailableAt: number[] = [];
/** Ops acknowledged after the kill: ms from the kill to their start, and how long they took. */
const afterKill: { startMs: number; tookMs: number }[] = [];

/** Error frames the bots' sockets received, by code (before the SDK retried them). */
const refusals = new Map<string, number>();

function countingSocket(): new (url: string) => SocketLike {
  class Counting extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on("message", (data: Buffer, isBinary: boolean) => {
        const decoded = decodeServerFrame(isBinary ? new Uint8Array(data) : data.toString("utf8"));
        if (decoded.ok && decoded.frame.type === "error") {
          refusals.set(decoded.frame.code, (refusals.get(decoded.frame.code) ?? 0) + 1);
          if (decoded.frame.code === "UNAVAILABLE") {
            unavailableAt.push(performance.now() - kills.at);
            if (kills.at === Number.POSITIVE_INFINITY) healthyRefusals.add(decoded.frame.message);
          }
        }
      });
    }
  }
  return Counting as unknown as new (url: string) => SocketLike;
}

/** An SDK client that knows every node, `first` first. */
function bot(id: string, first: number): Promise<FoyerClient> {
  // Longer than any re-election (4–9 s): a call that still fails was refused for good.
  return fleet.player(id, urls[first]!, { callTimeoutMs: 60_000, WebSocket: countingSocket() });
}

/** A pair's lobby as its acknowledged ops left it; null when the last acked op closed it (or none made one). */
interface Model {
  readonly code: string;
  readonly members: string[];
  readonly ready: boolean[];
}

interface Pair {
  readonly index: number;
  readonly host: FoyerClient;
  readonly guest: FoyerClient;
  readonly hostId: string;
  readonly guestId: string;
  model: Model | null;
  /** Codes of lobbies the host's acknowledged leave closed. */
  readonly closed: string[];
  rounds: number;
  /** Ops started before the kill and acknowledged after it. */
  spanned: number;
  /** The longest of those, ms (for the report, not asserted). */
  spannedMaxMs: number;
  failure?: string;
}

interface Load {
  readonly pairs: Pair[];
  stop(): Promise<void>;
}

/** Clock of kills: an op spans a kill when it started before and was acknowledged after. */
const kills = { at: Number.POSITIVE_INFINITY };

async function startLoad(tag: string): Promise<Load> {
  const all = await Promise.all(
    Array.from({ length: pairs }, async (_, p): Promise<Pair> => {
      const hostId = `${tag}-h${p}`;
      const guestId = `${tag}-g${p}`;
      return {
        index: p,
        hostId,
        guestId,
        host: await bot(hostId, p % 3),
        guest: await bot(guestId, (p + 1) % 3),
        model: null,
        closed: [],
        rounds: 0,
        spanned: 0,
        spannedMaxMs: 0,
      };
    }),
  );
  let stopping = false;
  const loops = all.map(async (pair) => {
    const { host, guest, hostId, guestId } = pair;
    /** Runs one op; on its acknowledgement applies `change` to the model. */
    const op = async (name: string, call: () => Promise<unknown>, change: () => void): Promise<boolean> => {
      if (stopping || pair.failure !== undefined) return false;
      const started = performance.now();
      try {
        await call();
      } catch (error) {
        const code = isFoyerError(error) ? error.code : "thrown";
        pair.failure = `pair ${pair.index} round ${pair.rounds} ${name}: ${code} ${String(error)}`;
        return false;
      }
      const acked = performance.now();
      if (acked >= kills.at) afterKill.push({ startMs: started - kills.at, tookMs: acked - started });
      if (started < kills.at && acked >= kills.at) {
        pair.spanned += 1;
        pair.spannedMaxMs = Math.max(pair.spannedMaxMs, acked - started);
      }
      change();
      return true;
    };
    const model = (): Model => {
      if (pair.model === null) throw new Error("no lobby in the model");
      return pair.model;
    };
    while (!stopping && pair.failure === undefined) {
      let code = "";
      const steps: [string, () => Promise<unknown>, () => void][] = [
        [
          "create",
          async () => (code = (await host.create()).code),
          () => (pair.model = { code, members: [hostId], ready: [false] }),
        ],
        ["join", () => guest.join(code), () => (model().members.push(guestId), model().ready.push(false))],
        ["guest ready", () => guest.ready(true), () => (model().ready[1] = true)],
        ["host ready", () => host.ready(true), () => (model().ready[0] = true)],
        ["guest unready", () => guest.ready(false), () => (model().ready[1] = false)],
        [
          "guest leave",
          () => guest.leave(),
          () => (model().members.splice(1, 1), model().ready.splice(1, 1)),
        ],
        ["host leave", () => host.leave(), () => (pair.closed.push(code), (pair.model = null))],
      ];
      let done = true;
      for (const [name, call, change] of steps) {
        if (!(await op(name, call, change))) {
          done = false;
          break;
        }
      }
      if (done) pair.rounds += 1;
    }
  });
  return {
    pairs: all,
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

/** Waits until every pair has completed `more` rounds from now (or one failed). */
async function rounds(load: Load, more: number, timeoutMs: number): Promise<void> {
  const target = load.pairs.map((p) => p.rounds + more);
  await eventually(() => {
    const behind = load.pairs.filter((p, i) => p.failure === undefined && p.rounds < target[i]!);
    expect(behind.map((p) => `pair ${p.index}: ${p.rounds}`)).toEqual([]);
  }, timeoutMs);
}

/**
 * What the lobbies serve, compared with the models: a fresh probe joins each open lobby through a third
 * node and must find the pair's acknowledged members, host and ready flags (and itself); each pair's own
 * clients must hold the same; a lobby whose close was acknowledged must be gone.
 */
async function checkFinalState(load: Load, tag: string): Promise<string[]> {
  const problems: string[] = [];
  for (const pair of load.pairs) {
    const probe = await bot(`${tag}-probe${pair.index}`, (pair.index + 2) % 3);
    const expected = pair.model;
    if (expected !== null) {
      await probe.join(expected.code);
      const want = {
        code: expected.code,
        host: pair.hostId,
        members: [...expected.members, probe.player],
        ready: [...expected.ready, false],
      };
      await eventually(() => expect(served(probe)).toEqual(want), 10_000).catch(() =>
        problems.push(
          `pair ${pair.index}: served ${JSON.stringify(served(probe))}, acked ${JSON.stringify(want)}`,
        ),
      );
      await probe.leave();
      const own = {
        code: expected.code,
        host: pair.hostId,
        members: expected.members,
        ready: expected.ready,
      };
      const members = expected.members.length > 1 ? [pair.host, pair.guest] : [pair.host];
      for (const member of members) {
        await eventually(() => expect(served(member)).toEqual(own), 10_000).catch(() =>
          problems.push(`pair ${pair.index} ${member.player}: holds ${JSON.stringify(served(member))}`),
        );
      }
    }
    // The lobbies closed since the kill (and the two before it) are gone: a join finds no lobby.
    for (const code of pair.closed.slice(-Math.min(pair.closed.length, 4))) {
      const outcome = await probe.join(code).then(
        () => "joined",
        (error: unknown) => (isFoyerError(error) ? error.code : String(error)),
      );
      if (outcome === "joined") {
        problems.push(`pair ${pair.index}: closed lobby ${code} joined; host ${probe.lobby?.host ?? "?"}`);
        await probe.leave();
      } else if (outcome !== "NOT_FOUND") problems.push(`pair ${pair.index}: join ${code} → ${outcome}`);
    }
    probe.close();
  }
  return problems;
}

/** The lobby a client holds, in the model's terms. */
function served(
  client: FoyerClient,
): { code: string; host: string | null; members: string[]; ready: boolean[] } | null {
  const view = client.lobby;
  return (
    view && {
      code: view.code,
      host: view.host,
      members: view.members.map((m) => m.player),
      ready: view.members.map((m) => m.ready),
    }
  );
}

/** The server each stream's leader, and the meta leader, are on. */
async function leaders(): Promise<{ streams: Map<string, string | undefined>; meta: string | undefined }> {
  const nc = await connectNats({ servers: nats().urls });
  try {
    const jsm = await nc.jetstreamManager();
    const streams = new Map<string, string | undefined>();
    for (const info of await jsm.streams.list().next()) {
      streams.set(info.config.name, info.cluster?.leader);
    }
    return { streams, meta: await nats().metaLeader() };
  } finally {
    await nc.close();
  }
}

function indexOf(name: string | undefined): number {
  const index = [0, 1, 2].find((i) => nats().config(i).name === name);
  if (index === undefined) throw new Error(`no server named ${name}`);
  return index;
}

/** Moves every stream leader off server `name` (a stepdown elects another replica) before the load. */
async function leadNothing(name: string): Promise<void> {
  const nc: NatsConnection = await connectNats({ servers: nats().urls });
  try {
    await eventually(async () => {
      const { streams, meta } = await leaders();
      expect(meta).not.toBe(name);
      const led = [...streams].filter(([, leader]) => leader === name || leader === undefined);
      for (const [stream] of led) {
        await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5_000 });
      }
      expect(led.map(([stream]) => stream)).toEqual([]);
    }, 60_000);
  } finally {
    await nc.close();
  }
}

/** Kills server `index` under load, lets every pair finish rounds through the outage, restarts it. */
async function killUnderLoad(tag: string, pick: () => Promise<number>): Promise<void> {
  refusals.clear();
  healthyRefusals.clear();
  unavailableAt.length = 0;
  afterKill.length = 0;
  const load = await startLoad(tag);
  const marks = { restartedMs: 0 };
  try {
    await rounds(load, 2, 60_000);
    const victim = await pick();
    kills.at = performance.now();
    await nats().kill(victim, "SIGKILL");
    // Through the re-election and past it: two whole rounds per pair while the server is down.
    await rounds(load, 2, 120_000);
    marks.restartedMs = performance.now() - kills.at;
    await nats().restart(victim);
    await rounds(load, 1, 60_000);
  } finally {
    await load.stop();
    kills.at = Number.POSITIVE_INFINITY;
  }
  const failures = load.pairs.flatMap((p) => (p.failure === undefined ? [] : [p.failure]));
  expect(failures, "calls that failed").toEqual([]);
  // Every refusal the nodes gave under the load was one the SDK retries.
  const refused = Object.fromEntries(refusals);
  expect(Object.keys(refused).filter((code) => !isRetryable(code as ErrorCode))).toEqual([]);
  // The kill came while ops were in flight: some were acknowledged only after it.
  const spanned = load.pairs.reduce((n, p) => n + p.spanned, 0);
  expect(spanned).toBeGreaterThan(0);
  const problems = await checkFinalState(load, tag);
  expect(problems).toEqual([]);
  const longest = Math.round(Math.max(...load.pairs.map((p) => p.spannedMaxMs)));
  const slowest = afterKill.reduce((a, b) => (b.tookMs > a.tookMs ? b : a), { startMs: 0, tookMs: 0 });
  const outage = unavailableAt.filter((ms) => ms >= 0);
  const window =
    outage.length === 0
      ? "none"
      : `${outage.length}, from ${Math.round(Math.min(...outage))} to ${Math.round(Math.max(...outage))} ms`;
  process.stdout.write(
    `${tag}: restart began ${Math.round(marks.restartedMs)} ms after the kill; slowest op after the kill took ${Math.round(slowest.tookMs)} ms (started ${Math.round(slowest.startMs)} ms after it); UNAVAILABLE refusals after the kill: ${window}; ${unavailableAt.length - outage.length} before it ${JSON.stringify([...healthyRefusals])}\n`,
  );
  process.stdout.write(
    `${tag}: ${load.pairs.reduce((n, p) => n + p.rounds, 0)} rounds; ${spanned} ops spanned the kill, the longest ${longest} ms; refusals under load: ${JSON.stringify(refused)}\n`,
  );
  fleet.closePlayers();
}

describe("killing one of three nats-servers under a load of lobby ops", () => {
  it("a snapshot stream's leader: refused changes are retried, nothing acknowledged is lost", async () => {
    await killUnderLoad("leader", async () => {
      const { streams, meta } = await leaders();
      const stream = snapshotStreamOf("lobby/any");
      const leader = streams.get(stream);
      const also = [...streams].filter(([s, l]) => l === leader && s !== stream).map(([s]) => s);
      process.stdout.write(
        `killing ${leader}: leads ${stream}, ${also.join(", ") || "no other stream"}${meta === leader ? ", the meta group" : ""}\n`,
      );
      return indexOf(leader);
    });
  }, 300_000);

  it("a server that leads nothing: refused changes are retried, nothing acknowledged is lost", async () => {
    const { meta } = await leaders();
    const name = [0, 1, 2].map((i) => nats().config(i).name).find((n) => n !== meta);
    await leadNothing(name!);
    await killUnderLoad("follower", async () => {
      const { streams, meta: now } = await leaders();
      const led = [...streams].filter(([, l]) => l === name).map(([s]) => s);
      // Leaders stay where the stepdowns put them while nothing fails.
      expect([...led, ...(now === name ? ["meta"] : [])]).toEqual([]);
      return indexOf(name);
    });
  }, 300_000);
});
