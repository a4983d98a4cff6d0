import {
  type ActorSystem,
  type AskResult,
  defaultResultSessions,
  type StampedFrame,
} from "../../actors/runtime/index.ts";
import type { FleetNode } from "../fleet-node.ts";
import { fleetNodeFrom, type FleetWorld } from "../fleet-node-from.ts";
import type { FleetLog, FleetNodeHooks, FleetNodeSettings } from "../fleet-node-ports.ts";
import type { DrainProgress } from "../protocol/index.ts";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { ackListener, simLobbyKind, simRegistryKind } from "./sim-counter-kind.ts";
import { describe, type OpAnswer } from "./sim-ops.ts";
import { joinUntilDone } from "./sim-join.ts";
import type { SimHost } from "./virtual-loop.ts";

/** A drain's deadline: what is left then is taken over by failover after the node leaves. */
const drainDeadlineMs = 6_000;

/**
 * How a node behaves. `correct` is the fleet as it runs; the others are deliberately broken, to prove
 * the checks catch what they break.
 */
export type SimVariant =
  | "correct"
  /** Its clocks both stop while the process is paused, so its lease check takes a lapsed lease for fresh. */
  | "lease-on-stopped-clocks"
  /** A registry that records a move but never drives the leave of the old lobby. */
  | "registry-never-leaves"
  /**
   * FleetNode's wiring broken after it was built: the runtime is not handed the node's lease check
   * (`state.mayAct` always true), so actors act on a lapsed lease. Proves the seeds run FleetNode's wiring.
   */
  | "runtime-ignores-lease";

/** What a simulated process is given by its world. */
export interface SimProcessPorts {
  readonly node: string;
  readonly host: SimHost;
  /** The store, bus, clocks and randomness of this process (FleetWorld). */
  readonly world: FleetWorld;
  readonly variant: SimVariant;
  /** The node's runtime pushed `applied { op }` for `key` at `epoch`: a client is told so. */
  readonly acked: (key: string, op: string, epoch: number) => void;
  /** A key was adopted here from a draining peer. */
  readonly adopted: () => void;
  /** The players whose sessions a restored `key` finds on its node (the sim's sessions follow lobbies). */
  readonly playersOf: (key: string) => readonly string[];
  /** Players other than the world's ack listener with a socket on this node (the scale scenario's). */
  readonly connected?: (player: string) => boolean;
  /** Settings that differ from `simSettings` (the scale scenario's whole-bucket claims watch). */
  readonly settings?: Partial<FleetNodeSettings>;
  /** Kinds this world's nodes serve beside the simulation's own (the scale scenario's lobby). */
  readonly kinds?: (system: ActorSystem) => void;
  readonly trace: (line: string) => void;
}

/** The fleet settings of a simulated node: production's timing, a drain sized for the world's length. */
export function simSettings(node: string): FleetNodeSettings {
  return {
    nodeId: node,
    region: "sim",
    heartbeatMs: 1_000,
    failureTimeoutMs: 3_000,
    drainDeadlineMs,
    drainConcurrency: 48,
    version: "sim",
    protocol: 1,
    resultSessions: defaultResultSessions,
  };
}

/**
 * One process of a simulated node: the real FleetNode, built by `fleetNodeFrom` as `foyer node` builds
 * it, over the world's store, bus and clocks, running the simulation's lobby and registry kinds. The
 * gateway is played by this class: a client's op is an ask to the node's ActorSystem (its router
 * forwards it when another node owns the key), a create is a spawn where the node places new lobbies.
 * A restart is a new SimProcess under the same node id.
 */
export class SimProcess {
  private fleet: FleetNode | undefined;
  private joined = false;
  private started: Promise<void> | undefined;
  private draining = false;

  constructor(private readonly ports: SimProcessPorts) {}

  /** The simulated process this node runs as. */
  get host(): SimHost {
    return this.ports.host;
  }

  get node(): string {
    return this.ports.node;
  }

  /** The incarnation this process runs as now (a fenced node takes a new one in place). */
  get incarnation(): string | undefined {
    return this.fleet?.identity.incarnation;
  }

  /** Builds the node and joins (retrying while the store refuses), then announces its URL. */
  start(): Promise<void> {
    this.started ??= this.joinAndServe();
    return this.started;
  }

  private async joinAndServe(): Promise<void> {
    const fleet = await fleetNodeFrom(
      this.ports.world,
      { ...simSettings(this.node), ...this.ports.settings },
      this.hooks(),
    );
    if (this.ports.variant === "runtime-ignores-lease") Object.assign(fleet.state, { mayAct: () => true });
    this.fleet = fleet;
    await joinUntilDone(
      () => fleet.start(),
      this.ports.world.scheduler,
      (error) => {
        this.say(`join failed: ${describe(error)}`);
      },
    );
    this.ports.trace(`${this.node}/${fleet.identity.incarnation} joined`);
    this.joined = true;
    // As the gateway does once it listens: peers can now redirect to this node.
    await fleet.announce(`sim://${this.node}`).catch((error: unknown) => {
      this.say(`announce failed: ${describe(error)}`);
    });
  }

  /** Creates `key` here; true when the create succeeded (the client was told it exists). */
  async create(key: string, init?: unknown): Promise<boolean> {
    const fleet = this.fleet;
    // A node takes requests once it joined; a draining one places new lobbies on a peer.
    if (fleet === undefined || !this.joined || fleet.placeNew().kind !== "here") return false;
    const spawned = await fleet.system.spawn(key, init);
    if (!spawned.created) return false;
    if (!spawned.result.ok) this.say(`create ${key} failed: ${spawned.result.code}`);
    return spawned.result.ok;
  }

  /** A client's message for `key`: acknowledged, or refused (the client retries the same message). */
  receive(key: string, message: unknown, answer: (answer: OpAnswer) => void): void {
    const fleet = this.fleet;
    if (fleet === undefined || !this.joined) {
      answer("refused");
      return;
    }
    void fleet.system.ask(key, message).then((result) => {
      answer(result.ok ? "acked" : "refused");
    });
  }

  /** Asks `key` a read-only question (a counter's `get`, a lobby's `view`): the final check that it is served. */
  probe(key: string, timeoutMs: number): Promise<AskResult> {
    const fleet = this.fleet;
    if (fleet === undefined || !this.joined)
      return Promise.resolve({ ok: false, code: "UNAVAILABLE", message: "not joined" });
    return fleet.system.ask(key, { type: key.startsWith("lobby/") ? "view" : "get" }, { timeoutMs });
  }

  /** True while this process's lease is fresh: it may act. */
  mayAct(): boolean {
    return this.fleet?.state.mayAct() ?? false;
  }

  /**
   * Drains as `foyer drain` does: FleetNode's drain moves every key to its peers, then the node leaves.
   * Null when a drain already runs, or when the node refused (no live peer to take the keys).
   */
  async drain(): Promise<DrainProgress | null> {
    if (this.draining) return null; // as the admin API: one drain at a time
    this.draining = true;
    // A node drains once it has joined (the admin API starts after the join).
    await this.start();
    const fleet = this.fleet;
    if (fleet === undefined) return null;
    const answer = fleet.drain();
    this.say(`drains: ${answer.message}`);
    if (!answer.accepted) return null;
    const progress = await fleet.drained;
    this.say(
      `drain ${progress.state}: moved ${progress.moved}, left ${progress.left}, failed ${progress.failed}`,
    );
    await fleet.close();
    return progress;
  }

  private hooks(): FleetNodeHooks {
    return {
      outbox: {
        push: (players, frame) => {
          this.pushed(players, frame);
        },
      },
      capacity: { canOpenRoom: () => true },
      events: {},
      register: (system) => {
        // The real private lobby, as `foyer node` registers it, beside the counters.
        system.register(lobbyKind(defaultLobbyOptions));
        system.register(simLobbyKind());
        system.register(simRegistryKind(this.ports.variant !== "registry-never-leaves"));
        this.ports.kinds?.(system);
      },
      // The stand-in for the gateway's sessions: a party's players follow their lobby at once (resumed
      // on its new node), so a restored lobby counts them connected and arms no grace for them.
      playersHere: (key) => this.ports.playersOf(key),
      connectedHere: (player) => player === ackListener || this.ports.connected?.(player) === true,
      inKeyHere: () => false,
      reset: () => {
        this.say("was declared dead: drops its actors");
      },
      moved: (key, url) => {
        this.say(`tells ${key}'s members it moved to ${url}`);
      },
      draining: () => undefined,
      log: this.log,
      fleetEvents: {
        tookOver: (key) => {
          this.say(`took over ${key}`);
        },
        migrated: (direction, result) => {
          this.say(`migration ${direction}: ${result}`);
          if (result === "adopted") this.ports.adopted();
        },
      },
    };
  }

  private pushed(players: readonly string[], frame: StampedFrame): void {
    if (!players.includes(ackListener) || frame.type !== "applied") return;
    if (typeof frame.op === "string") this.ports.acked(frame.key, frame.op, frame.epoch);
  }

  /** The node's log, as lines of the world's trace. */
  private readonly log: FleetLog = {
    info: (fields, message) => {
      this.logged(fields, message);
    },
    warn: (fields, message) => {
      this.logged(fields, message);
    },
    error: (fields, message) => {
      this.logged(fields, message);
    },
  };

  private logged(fields: object, message: string): void {
    const parts = Object.entries(fields).map(([name, value]) => `${name}=${shown(value)}`);
    this.say(`${message}${parts.length > 0 ? ` (${parts.join(" ")})` : ""}`);
  }

  private say(line: string): void {
    this.ports.trace(`${this.node} ${line}`);
  }
}

/** A logged field as the trace shows it: an error by its code or name, plain data as JSON. */
function shown(value: unknown): string {
  if (value instanceof Error || typeof value !== "object" || value === null) return describe(value);
  return JSON.stringify(value);
}
