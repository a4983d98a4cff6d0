import { seededRandom } from "../../actors/runtime/index.ts";
import { MemoryBlobStore } from "../memory/index.ts";
import { SimNet } from "./sim-bus.ts";
import { SimCounters } from "./sim-counters.ts";
import { SimKv } from "./sim-kv.ts";
import { SimProcess } from "./sim-process.ts";
import { SimRandom } from "./sim-random.ts";
import { scaleKindName, scalePlayersOf, simScaleKind } from "./sim-scale-kind.ts";
import { NodeClock, type SimHost, VirtualLoop } from "./virtual-loop.ts";

/** What a scale run is made of: a fleet's size and a load that does not depend on it. */
export interface ScaleSimulationOptions {
  readonly nodes: number;
  /** Lobbies open at once, each stepped by its own client. Default 40. */
  readonly lobbies?: number;
  /** Virtual ms between one client's steps (create, 3 ops, close; then the next lobby). Default 200. */
  readonly stepMs?: number;
  /** Virtual ms of the idle window, measured before the load starts. Default 2,000. */
  readonly idleMs?: number;
  /** Virtual ms of the measured load. Default 5,000. */
  readonly loadMs?: number;
  readonly seed?: number;
  /** Every node watches the whole claims bucket, as nodes of the previous release do. Default false. */
  readonly claimsWatch?: boolean;
}

/** What a scale run counted: each count of the idle window and of the load window, by name (SimCounters). */
export interface ScaleSimulationResult {
  readonly nodes: number;
  /** Ops acknowledged during the load window (creates and closes included). */
  readonly ops: number;
  readonly idleMs: number;
  readonly loadMs: number;
  readonly idle: ReadonlyMap<string, number>;
  readonly load: ReadonlyMap<string, number>;
}

/** Nodes have joined and announced by then (they start within 300 ms; a join is a few KV round trips). */
const warmupMs = 3_000;
const wallEpoch = 1_700_000_000_000;
/** The steps of one lobby's life: a create, three ops, a close — two claim writes per five ops. */
const opsPerLobby = 3;

/**
 * A healthy fleet of `nodes` real FleetNodes (as the simulation runs them, with no faults) under a fixed
 * load, counting every KV operation, watch delivery, bus message and request (SimCounters) — first over
 * an idle window, then over the load. Each client opens a lobby on a random node, seats its four players
 * (one on the owner's gateway, the others on random gateways, as a matched lobby's are), sends three ops
 * through its players' gateways and closes it, one step every `stepMs`; then opens the next.
 */
export async function runScaleSimulation(options: ScaleSimulationOptions): Promise<ScaleSimulationResult> {
  const world = new ScaleWorld(options);
  return world.run();
}

class ScaleWorld {
  private readonly loop = new VirtualLoop();
  private readonly random: SimRandom;
  private readonly counters = new SimCounters();
  private readonly kv: SimKv;
  private readonly net: SimNet;
  private readonly processes: SimProcess[] = [];
  /** Where each seated player's socket is: a node id. */
  private readonly seats = new Map<string, string>();
  private acked = 0;
  private lobbies = 0;

  constructor(private readonly options: ScaleSimulationOptions) {
    this.random = new SimRandom(options.seed ?? 1);
    const none = { refuse: 0, timeout: 0, slow: 0 };
    const healthy = { electing: () => false, partitioned: () => false, faulty: () => false };
    this.kv = new SimKv(this.loop, this.random, none, healthy, () => undefined, this.counters);
    const noLoss = { dropRequest: 0, dropReply: 0, slow: 0 };
    this.net = new SimNet(
      this.loop,
      this.random,
      noLoss,
      () => false,
      () => undefined,
      this.counters,
    );
  }

  async run(): Promise<ScaleSimulationResult> {
    const idleMs = this.options.idleMs ?? 2_000;
    const loadMs = this.options.loadMs ?? 5_000;
    for (let i = 1; i <= this.options.nodes; i++) this.startProcess(`n${i}`, this.random.between(0, 300));
    await this.loop.runUntil(warmupMs);
    const idleFrom = this.counters.snapshot();
    await this.loop.runUntil(warmupMs + idleMs);
    const idle = this.counters.since(idleFrom);
    const loadFrom = warmupMs + idleMs;
    for (let client = 0; client < (this.options.lobbies ?? 40); client++)
      this.loop.schedule(loadFrom + this.random.between(0, this.stepMs), () => {
        this.openLobby();
      });
    // The clients' first steps start the load: the window opens once they run.
    await this.loop.runUntil(loadFrom + this.stepMs);
    const before = this.counters.snapshot();
    const ackedBefore = this.acked;
    await this.loop.runUntil(loadFrom + this.stepMs + loadMs);
    const load = this.counters.since(before);
    const ops = this.acked - ackedBefore;
    for (const process of this.processes) process.host.stopped = true;
    return { nodes: this.options.nodes, ops, idleMs, loadMs, idle, load };
  }

  private get stepMs(): number {
    return this.options.stepMs ?? 200;
  }

  private startProcess(node: string, at: number): void {
    const host: SimHost = { stopped: false, pausedUntil: 0 };
    const clock = new NodeClock(this.loop, wallEpoch + this.random.between(-500, 500), 0);
    const process = new SimProcess({
      node,
      host,
      world: {
        kv: this.kv.storeFor(node, host),
        bus: this.net.busFor(host),
        blobs: new MemoryBlobStore(1 << 20, () => clock.wall()),
        scheduler: clock.scheduler(host),
        monotonic: () => clock.monotonic(),
        wallClock: () => clock.wall(),
        random: seededRandom(this.random.int(2 ** 31)),
        newIncarnation: () => `${node}.1`,
      },
      variant: "correct",
      ...(this.options.claimsWatch === true ? { settings: { claimsWatch: true } } : {}),
      acked: () => undefined,
      adopted: () => undefined,
      playersOf: () => [],
      connected: (player) => this.seats.get(player) === node,
      kinds: (system) => {
        system.register(simScaleKind());
      },
      trace: () => undefined,
    });
    this.processes.push(process);
    this.loop.schedule(at, () => void process.start());
  }

  /** One client's next lobby: created on a random node, its players seated, then stepped through its life. */
  private openLobby(): void {
    const key = `${scaleKindName}/L${++this.lobbies}`;
    const owner = this.random.pick(this.processes);
    const sent = this.loop.now;
    void owner.create(key).then((ok) => {
      if (!ok) {
        this.after(sent, () => {
          this.openLobby();
        });
        return;
      }
      this.acked++;
      const [host, ...others] = scalePlayersOf(key);
      if (host !== undefined) this.seats.set(host, owner.node);
      for (const player of others) this.seats.set(player, this.random.pick(this.processes).node);
      this.after(sent, () => {
        this.step(key, 1);
      });
    });
  }

  /** Step `n` of `key`'s life, sent to the gateway of one of its players (forwarded to the owner from there). */
  private step(key: string, n: number): void {
    const players = scalePlayersOf(key);
    const gateway = this.gatewayOf(players[n % players.length] ?? "");
    const closing = n > opsPerLobby;
    const sent = this.loop.now;
    gateway.receive(key, closing ? { type: "close" } : { type: "op", op: `${key}-${n}` }, (answer) => {
      if (answer === "acked") this.acked++;
      this.after(sent, () => {
        if (!closing) {
          this.step(key, answer === "acked" ? n + 1 : n);
          return;
        }
        for (const player of players) this.seats.delete(player);
        this.openLobby();
      });
    });
  }

  private gatewayOf(player: string): SimProcess {
    const node = this.seats.get(player);
    return this.processes.find((p) => p.node === node) ?? this.random.pick(this.processes);
  }

  /** Runs `next` one step after `sent` (at once when the answer took longer than a step). */
  private after(sent: number, next: () => void): void {
    this.loop.schedule(sent + this.stepMs, next);
  }
}
