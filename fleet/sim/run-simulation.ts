import { seededRandom } from "../../actors/runtime/index.ts";
import { MemoryBlobStore } from "../memory/index.ts";
import { decodeSnapshot, decodeClaim, isApartKvKey } from "../protocol/index.ts";
import { type AckRecord, type Violation, type WriteRecord, checkInvariants } from "./sim-checks.ts";
import { type Fault, type FaultKind, describeFault, faultKinds, planFaults } from "./sim-faults.ts";
import { type KvFaultRates, SimKv } from "./sim-kv.ts";
import { finalKeys } from "./sim-final.ts";
import { SimProcess, type SimVariant } from "./sim-process.ts";
import { SimRandom } from "./sim-random.ts";
import { NodeClock, type SimHost, VirtualLoop } from "./virtual-loop.ts";
import { SimClients } from "./sim-clients.ts";
import { partiesKept, partyPlan } from "./sim-party.ts";
import { type BusFaultRates, SimNet } from "./sim-bus.ts";

/** What a simulated run is made of. Everything not given has a default sized for thousands of seeds in CI. */
export interface SimulationOptions {
  readonly seed: number;
  /** Nodes, 3–5. Default 4. */
  readonly nodes?: number;
  /** Keys created by clients. Default 3. */
  readonly keys?: number;
  /** Players moving between two lobbies through their registry key. Default 1. */
  readonly movers?: number;
  /** Real private lobbies, each run through its script of joins, ready, rename and leave. Default 1. */
  readonly parties?: number;
  /** Virtual ms during which faults happen. Default 16,000. */
  readonly faultMs?: number;
  /** Virtual ms after every fault healed, before the checks. Default 14,000. */
  readonly settleMs?: number;
  readonly faults?: {
    readonly kinds?: readonly FaultKind[];
    /** Discrete faults in the run: 1 to this. Default 3. */
    readonly count?: number;
    /** These faults instead of a drawn plan (a focused test of one schedule). */
    readonly plan?: readonly Fault[];
    readonly kv?: Partial<KvFaultRates>;
    readonly bus?: Partial<BusFaultRates>;
  };
  /** Default "correct"; the broken ones prove the checks can fail. */
  readonly variant?: SimVariant;
}

export interface SimulationResult {
  readonly seed: number;
  readonly violations: readonly Violation[];
  /** Every notable event, `t=<virtual ms> <what>`: equal for two runs of one seed. */
  readonly trace: readonly string[];
  readonly faults: readonly Fault[];
  readonly stats: {
    readonly acks: number;
    readonly created: number;
    readonly moves: number;
    /** Party lobby steps acknowledged. */
    readonly partySteps: number;
    /** Keys that changed hands by a migration (adopted by a draining node's peer). */
    readonly adopted: number;
    readonly virtualMs: number;
  };
}

const defaultKvRates: KvFaultRates = { refuse: 0.02, timeout: 0.02, slow: 0.03 };
const defaultBusRates: BusFaultRates = { dropRequest: 0.05, dropReply: 0.05, slow: 0.1 };
const wallEpoch = 1_700_000_000_000;

/** Room documents a simulated node may hold (none are uploaded: the kinds have no rooms). */
const blobBytes = 1 << 20;

/**
 * Runs one seeded world: nodes running the real FleetNode (built as `foyer node` builds it) over a
 * faulty shared KV and a lossy bus, clients sending ops with retries, planned faults; then heals, lets it
 * settle and checks the fleet's invariants. The same options give the same trace.
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  const world = new SimWorld(options);
  return world.run();
}

class SimWorld {
  private readonly loop = new VirtualLoop();
  private readonly random: SimRandom;
  private readonly kv: SimKv;
  private readonly net: SimNet;
  private adoptions = 0;
  private readonly trace: string[] = [];
  private readonly acks: AckRecord[] = [];
  private readonly writes: WriteRecord[] = [];
  private readonly processes = new Map<string, SimProcess>();
  private readonly hosts = new Map<string, SimHost>();
  private readonly clocks = new Map<string, NodeClock>();
  private readonly crashedForGood = new Set<string>();
  private readonly elections: { from: number; until: number }[] = [];
  private readonly partitions: { node: string; from: number; until: number }[] = [];
  private readonly nodeIds: string[];
  private readonly faultMs: number;
  private readonly settleMs: number;
  private healed = false;
  private incarnations = 0;
  /** Each party lobby's players, whose sessions follow it (SimProcessPorts.playersOf). */
  private readonly partyPlayers: ReadonlyMap<string, readonly string[]>;

  constructor(private readonly options: SimulationOptions) {
    this.random = new SimRandom(options.seed);
    this.net = new SimNet(
      this.loop,
      this.random,
      this.busRates,
      () => !this.healed,
      (line) => {
        this.log(line);
      },
    );
    this.nodeIds = Array.from({ length: options.nodes ?? 4 }, (_, i) => `n${i + 1}`);
    this.faultMs = options.faultMs ?? 16_000;
    this.settleMs = options.settleMs ?? 14_000;
    const plans = Array.from({ length: options.parties ?? 1 }, (_, i) => partyPlan(i + 1));
    this.partyPlayers = new Map(plans.map((plan) => [plan.key, plan.players]));
    this.kv = new SimKv(
      this.loop,
      this.random,
      { ...defaultKvRates, ...options.faults?.kv },
      {
        electing: (at) => this.elections.some((w) => at >= w.from && at < w.until),
        partitioned: (node, at) =>
          this.partitions.some((p) => p.node === node && at >= p.from && at < p.until),
        faulty: () => !this.healed,
      },
      (bucket, key, value, revision) => {
        if (bucket === "claims") {
          const claim = decodeClaim(value);
          this.log(`claimed ${key} rev ${revision} by ${claim.node}/${claim.incarnation}`);
        }
        if (bucket !== "lobbies" || isApartKvKey(key)) return;
        const { epoch } = decodeSnapshot(value);
        this.writes.push({ at: this.loop.now, key, epoch, revision });
        this.log(`landed ${key} rev ${revision} epoch ${epoch}`);
      },
    );
  }

  private get busRates(): BusFaultRates {
    return { ...defaultBusRates, ...this.options.faults?.bus };
  }

  async run(): Promise<SimulationResult> {
    for (const node of this.nodeIds) {
      this.clocks.set(
        node,
        new NodeClock(this.loop, wallEpoch + this.random.between(-500, 500), this.random.between(0, 1e6)),
      );
      this.loop.schedule(this.random.between(0, 300), () => {
        this.startProcess(node);
      });
    }
    const faults =
      this.options.faults?.plan ??
      planFaults(this.random, {
        kinds: this.options.faults?.kinds ?? faultKinds,
        count: this.options.faults?.count ?? 3,
        nodes: this.nodeIds,
        from: 3_000,
        until: this.faultMs,
      });
    for (const fault of faults)
      this.loop.schedule(fault.at, () => {
        this.apply(fault);
      });
    const clients = new SimClients({
      loop: this.loop,
      random: this.random,
      keys: this.options.keys ?? 3,
      movers: this.options.movers ?? 1,
      parties: this.options.parties ?? 1,
      createFrom: 1_500,
      createUntil: Math.max(2_000, this.faultMs * 0.6),
      opsUntil: this.faultMs + 2_000,
      nodes: () => this.liveProcesses(),
      owner: (key) => this.ownerProcess(key),
      log: (line) => {
        this.log(line);
      },
    });
    clients.start();
    this.loop.schedule(this.faultMs, () => {
      this.healed = true;
      this.log("healed");
    });
    const end = this.faultMs + this.settleMs;
    await this.loop.runUntil(end);
    const read = await finalKeys({ kv: this.kv, loop: this.loop, processes: this.processes }, [
      ...clients.keys,
      ...clients.partyKeys,
    ]);
    for (const host of this.hosts.values()) host.stopped = true;
    // The party lobbies have their own check (sim-party.ts): the counters' invariants read op chains.
    const counted = (key: string): boolean => !key.startsWith("lobby/");
    const final = read.filter((f) => counted(f.key));
    const violations = [
      ...checkInvariants({
        acks: this.acks,
        writes: this.writes,
        created: clients.created.filter(counted),
        final,
        moves: clients.moves,
      }),
      ...partiesKept(clients.parties, read),
    ];
    return {
      seed: this.options.seed,
      violations,
      trace: this.trace,
      faults,
      stats: {
        acks: this.acks.length,
        created: clients.created.length,
        moves: clients.moves.length,
        partySteps: clients.parties.reduce((sum, party) => sum + party.acked, 0),
        adopted: this.adoptions,
        virtualMs: end,
      },
    };
  }

  private startProcess(node: string): void {
    // One process per node id, as under a supervisor: a start replaces the process that runs. Two restarts
    // of one node that overlap (the second while the node is still down) would otherwise leave the first
    // restart's process running unseen beside the second's, which the world no longer routes to or checks.
    this.kill(node);
    const host: SimHost = { stopped: false, pausedUntil: 0 };
    const clock = this.clocks.get(node);
    if (clock === undefined) throw new Error(`no clock for ${node}`);
    this.hosts.set(node, host);
    const process = new SimProcess({
      node,
      host,
      world: {
        kv: this.kv.storeFor(node, host),
        bus: this.net.busFor(host),
        blobs: new MemoryBlobStore(blobBytes, () => clock.wall()),
        scheduler: clock.scheduler(host),
        monotonic: () => clock.monotonic(),
        wallClock: () => clock.wall(),
        random: seededRandom(this.random.int(2 ** 31)),
        newIncarnation: () => this.newIncarnation(node),
      },
      variant: this.options.variant ?? "correct",
      acked: (key, op, epoch) => {
        this.acks.push({ at: this.loop.now, key, op, epoch, node });
        this.log(`${node} acked ${key} ${op} epoch ${epoch}`);
      },
      adopted: () => {
        this.adoptions++;
      },
      playersOf: (key) => this.partyPlayers.get(key) ?? [],
      trace: (line) => {
        this.log(line);
      },
    });
    this.processes.set(node, process);
    void process.start();
  }

  private apply(fault: Fault): void {
    this.log(describeFault(fault));
    const until = fault.at + ("ms" in fault ? fault.ms : 0);
    switch (fault.kind) {
      case "kv-election":
        this.elections.push({ from: fault.at, until });
        break;
      case "partition":
        this.partitions.push({ node: fault.node, from: fault.at, until });
        break;
      case "pause": {
        const host = this.hosts.get(fault.node);
        if (host !== undefined) host.pausedUntil = Math.max(host.pausedUntil, until);
        if (this.options.variant === "lease-on-stopped-clocks")
          this.clocks.get(fault.node)?.stall(fault.at, until);
        break;
      }
      case "clock-jump":
        this.clocks.get(fault.node)?.jump(fault.ms);
        break;
      case "crash":
        this.kill(fault.node);
        this.crashedForGood.add(fault.node);
        break;
      case "drain": {
        const process = this.processes.get(fault.node);
        if (process === undefined) break;
        void process.drain().then((progress) => {
          if (progress === null) return; // already draining: that drain decides
          // Left the fleet: the process exits (unless a restart already replaced it).
          if (this.processes.get(fault.node) !== process) return;
          this.kill(fault.node);
          this.log(`${fault.node} exited after its drain`);
          if (!fault.back) {
            this.crashedForGood.add(fault.node);
            return;
          }
          this.loop.schedule(this.loop.now + fault.ms, () => {
            if (!this.crashedForGood.has(fault.node) && !this.processes.has(fault.node))
              this.startProcess(fault.node);
          });
        });
        break;
      }
      case "restart":
        if (this.crashedForGood.has(fault.node)) break;
        this.kill(fault.node);
        this.loop.schedule(until, () => {
          if (!this.crashedForGood.has(fault.node)) this.startProcess(fault.node);
        });
        break;
    }
  }

  private kill(node: string): void {
    const host = this.hosts.get(node);
    if (host !== undefined) host.stopped = true;
    this.processes.delete(node);
  }

  private liveProcesses(): SimProcess[] {
    return this.nodeIds.flatMap((node) => {
      const process = this.processes.get(node);
      return process === undefined ? [] : [process];
    });
  }

  /** The process the key's claim names (a router with a perfect watch); undefined when none runs. */
  private ownerProcess(key: string): SimProcess | undefined {
    const claim = this.kv.state("claims").get(key);
    if (claim === undefined) return undefined;
    return this.processes.get(decodeClaim(claim.value).node);
  }

  private newIncarnation(node: string): string {
    return `${node}.${++this.incarnations}`;
  }

  private log(line: string): void {
    this.trace.push(`t=${this.loop.now} ${line}`);
  }
}
