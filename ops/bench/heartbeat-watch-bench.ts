import { readFileSync } from "node:fs";
import type { NatsConnection } from "nats";
import {
  type KvBucket,
  Membership,
  NatsKvStore,
  connectNats,
  encodeNodeRecord,
  realScheduler,
} from "../../fleet/index.ts";
import { startNats } from "../nats/index.ts";

/** Options of `foyer bench --scenario heartbeats`. */
export interface HeartbeatWatchBenchOptions {
  /** Heartbeat records written per second, spread over `peers` keys. */
  readonly writesPerSecond: number;
  /** Peers whose records are written (node ids n1…nN). */
  readonly peers: number;
  /** Watching nodes: each a real Membership on its own connection. */
  readonly watchers: number;
  /** Seconds of each window (writes alone, then writes heard by the watchers). */
  readonly seconds: number;
  readonly json: boolean;
}

/** What one window measured. */
interface Window {
  readonly writes: number;
  readonly deliveries: number;
  /** CPU seconds of this process (the writer, and the watchers in the second window). */
  readonly cpuFoyer: number;
  readonly cpuNats: number;
  /** Bytes the watchers' connections received. */
  readonly bytesIn: number;
}

/** What the bench prints: the cost of one heard heartbeat, and its share at 100 nodes. */
export interface HeartbeatWatchFigures {
  readonly recordBytes: number;
  readonly deliveries: number;
  readonly cpuUsFoyerPerHeard: number;
  readonly cpuUsNatsPerHeard: number;
  readonly bytesPerHeard: number;
  readonly alone: Window;
  readonly heard: Window;
}

const clockTicks = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s
const tickMs = 10;

/**
 * `foyer bench --scenario heartbeats`: what one heartbeat heard through the `nodes` watch costs, on a
 * real nats-server. A writer updates heartbeat records (as a node writes its own, by CAS) at a fixed
 * pace, first alone, then while `watchers` real Memberships watch the bucket; the difference in CPU (this
 * process, and the server) and in bytes received, over the deliveries counted, is the cost per heard
 * heartbeat — decoded and folded into each watcher's peer table as a node does.
 */
export async function runHeartbeatWatchBench(
  options: HeartbeatWatchBenchOptions,
): Promise<HeartbeatWatchFigures> {
  const nats = await startNats({ servers: 1 });
  const connect = async (): Promise<{ store: NatsKvStore; nc: NatsConnection }> => {
    const nc = await connectNats({ servers: nats.url(0) });
    return { store: new NatsKvStore(nc, { replicas: 1, ownsConnection: true }), nc };
  };
  const stores: NatsKvStore[] = [];
  try {
    const { store: writerStore } = await connect();
    stores.push(writerStore);
    const nodes = await writerStore.bucket("nodes");
    const writer = await Writer.start(nodes, options.peers);
    const natsPid = nats.pid(0);
    const cpuNats = (): number => (natsPid === undefined ? 0 : cpuSecondsOf(natsPid));
    const measure = async (watching: { deliveries: number; bytesIn: () => number }): Promise<Window> => {
      const from = {
        writes: writer.writes,
        deliveries: watching.deliveries,
        cpu: process.cpuUsage(),
        nats: cpuNats(),
        bytes: watching.bytesIn(),
      };
      await writer.paced(options.writesPerSecond, options.seconds * 1000);
      const cpu = process.cpuUsage(from.cpu);
      return {
        writes: writer.writes - from.writes,
        deliveries: watching.deliveries - from.deliveries,
        cpuFoyer: (cpu.user + cpu.system) / 1e6,
        cpuNats: cpuNats() - from.nats,
        bytesIn: watching.bytesIn() - from.bytes,
      };
    };
    const watching = { deliveries: 0, bytesIn: () => 0 };
    const alone = await measure(watching);
    const members: Membership[] = [];
    const watcherConnections: NatsConnection[] = [];
    for (let i = 0; i < options.watchers; i++) {
      const { store, nc } = await connect();
      stores.push(store);
      watcherConnections.push(nc);
      const counted = countingWatch(await store.bucket("nodes"), () => watching.deliveries++);
      const member = newWatcher(counted, `w${i + 1}`);
      await member.join();
      members.push(member.start());
    }
    watching.bytesIn = () => watcherConnections.reduce((sum, nc) => sum + nc.stats().inBytes, 0);
    await writer.paced(options.writesPerSecond, 1_000); // the watches' first deliveries settle
    const heard = await measure(watching);
    for (const member of members) member.stop();
    const share = heard.writes / Math.max(1, alone.writes);
    const per = (extra: number): number => (extra / Math.max(1, heard.deliveries)) * 1e6;
    const figures: HeartbeatWatchFigures = {
      recordBytes: writer.recordBytes,
      deliveries: heard.deliveries,
      cpuUsFoyerPerHeard: round1(per(heard.cpuFoyer - alone.cpuFoyer * share)),
      cpuUsNatsPerHeard: round1(per(heard.cpuNats - alone.cpuNats * share)),
      bytesPerHeard: Math.round(heard.bytesIn / Math.max(1, heard.deliveries)),
      alone,
      heard,
    };
    print(figures, options);
    return figures;
  } finally {
    await Promise.allSettled(stores.map((s) => s.close()));
    await nats.stop();
  }
}

/** Writes heartbeat records of `peers` nodes by CAS, round-robin, at a given pace. */
class Writer {
  writes = 0;
  private next = 0;

  private constructor(
    private readonly nodes: KvBucket,
    private readonly revisions: number[],
    private readonly records: Uint8Array[],
  ) {}

  static async start(nodes: KvBucket, peers: number): Promise<Writer> {
    const records = Array.from({ length: peers }, (_, i) =>
      encodeNodeRecord({
        incarnation: `n${i + 1}.0123456789abcdef`,
        url: `wss://lobby-${i + 1}.example.com/ws`,
        region: "eu-west",
        load: 1_234,
        draining: false,
        version: "0.1.0",
        protocol: 1,
        admin: `http://10.0.0.${i + 1}:9090`,
        beat: 123_456,
      }),
    );
    const revisions = await Promise.all(records.map((r, i) => nodes.put(`n${i + 1}`, r)));
    return new Writer(nodes, revisions, records);
  }

  /** The size of one record, as packed. */
  get recordBytes(): number {
    return this.records[0]?.length ?? 0;
  }

  /** Writes `perSecond` records a second for `ms`, a batch every 10 ms. */
  async paced(perSecond: number, ms: number): Promise<void> {
    const perTick = perSecond / (1000 / tickMs);
    const start = performance.now();
    let owed = 0;
    while (performance.now() - start < ms) {
      owed += perTick;
      const batch: Promise<void>[] = [];
      for (; owed >= 1; owed--) batch.push(this.writeOne());
      await Promise.all(batch);
      await new Promise((resolve) => setTimeout(resolve, tickMs));
    }
  }

  private async writeOne(): Promise<void> {
    const i = this.next;
    this.next = (this.next + 1) % this.records.length;
    const record = this.records[i] ?? new Uint8Array();
    this.revisions[i] = await this.nodes.update(`n${i + 1}`, record, this.revisions[i] ?? 0);
    this.writes++;
  }
}

/** A real Membership on the real clocks, as a node runs it (its rounds, its watch, its peer table). */
function newWatcher(nodes: KvBucket, node: string): Membership {
  return new Membership({
    nodes,
    node,
    incarnation: `${node}.bench`,
    scheduler: realScheduler(),
    monotonic: () => performance.now(),
    facts: () => ({ url: "", region: "eu-west", load: 0, draining: false, version: "0.1.0", protocol: 1 }),
  });
}

/** `nodes` whose watches count what they deliver. */
function countingWatch(nodes: KvBucket, delivered: () => void): KvBucket {
  return {
    name: nodes.name,
    get: (k) => nodes.get(k),
    create: (k, v) => nodes.create(k, v),
    update: (k, v, r) => nodes.update(k, v, r),
    put: (k, v) => nodes.put(k, v),
    delete: (k, o) => nodes.delete(k, o),
    keys: (p) => nodes.keys(p),
    watch: (o, onEntry) =>
      nodes.watch(o, (entry) => {
        delivered();
        onEntry(entry);
      }),
  };
}

function cpuSecondsOf(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

function print(figures: HeartbeatWatchFigures, options: HeartbeatWatchBenchOptions): void {
  if (options.json) {
    console.log(JSON.stringify({ scenario: "heartbeats", ...options, json: undefined, ...figures }));
    return;
  }
  const { alone, heard } = figures;
  const at100 = (us: number): string => `${((us * 100) / 1000).toFixed(2)} ms`;
  console.log(
    [
      `heartbeat record: ${figures.recordBytes} bytes packed`,
      `writes alone: ${alone.writes} in ${options.seconds} s; Foyer CPU ${alone.cpuFoyer.toFixed(2)} s, nats-server ${alone.cpuNats.toFixed(2)} s`,
      `writes heard by ${options.watchers} watchers: ${heard.writes}, ${heard.deliveries} deliveries; Foyer CPU ${heard.cpuFoyer.toFixed(2)} s, nats-server ${heard.cpuNats.toFixed(2)} s`,
      "",
      "| per heard heartbeat | value | × 100 a second (one node of 100) |",
      "| --- | --- | --- |",
      `| Foyer CPU (watch, decode, peer table) | ${figures.cpuUsFoyerPerHeard} µs | ${at100(figures.cpuUsFoyerPerHeard)} CPU a second |`,
      `| nats-server CPU (the delivery) | ${figures.cpuUsNatsPerHeard} µs | ${at100(figures.cpuUsNatsPerHeard)} CPU a second |`,
      `| bytes received | ${figures.bytesPerHeard} | ${((figures.bytesPerHeard * 100) / 1024).toFixed(1)} KiB a second |`,
    ].join("\n"),
  );
}
