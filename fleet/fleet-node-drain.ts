import type { Scheduler } from "../actors/runtime/index.ts";
import {
  type NodeIdentity,
  Drain,
  type DrainProgress,
  type DrainTarget,
  type ClaimView,
  type MoveOutcome,
} from "./protocol/index.ts";
import type { FleetLog } from "./fleet-node-ports.ts";

/** What a node's drain works with: its claims, its peers, its migrations and how it tells the world. */
export interface NodeDrainParts {
  readonly identity: NodeIdentity;
  readonly claims: () => Iterable<ClaimView>;
  /** Live, non-draining peers (placement's `liveTargets`). */
  readonly targets: () => readonly DrainTarget[];
  readonly move: (key: string, claimRevision: number, target: DrainTarget) => Promise<MoveOutcome>;
  readonly pinned: (key: string) => boolean;
  readonly scheduler: Scheduler;
  readonly deadlineMs: number;
  readonly concurrency: number;
  readonly log: FleetLog;
  /** The drain started: members are told, and peers hear it at once (a heartbeat now). */
  readonly started: () => void;
}

/** What a request to drain got: accepted (started now or before), or refused with why. */
export interface DrainAnswer {
  readonly accepted: boolean;
  readonly message: string;
}

/**
 * The drain of one node: at most one, started on request when a peer could take the keys, and the
 * promise of its end. Once started the node is draining for good (it leaves the fleet after).
 */
export class NodeDrain {
  private running: Drain | null = null;
  private readonly ended: { resolve: (progress: DrainProgress) => void } = { resolve: () => undefined };
  /** Resolves when a started drain ends (nothing left, or its deadline). */
  readonly drained = new Promise<DrainProgress>((resolve) => {
    this.ended.resolve = resolve;
  });

  constructor(private readonly parts: NodeDrainParts) {}

  /** True once a drain started. */
  get draining(): boolean {
    return this.running !== null;
  }

  /** Starts draining (idempotent): refused when no live peer could take the keys. */
  start(): DrainAnswer {
    if (this.running !== null) return { accepted: true, message: "already draining" };
    const { parts } = this;
    if (parts.targets().length === 0) {
      return {
        accepted: false,
        message: "no other live node could take this node's lobbies: stop it instead (SIGTERM)",
      };
    }
    const drain = new Drain({
      identity: parts.identity,
      claims: parts.claims,
      targets: parts.targets,
      move: parts.move,
      pinned: parts.pinned,
      scheduler: parts.scheduler,
      deadlineMs: parts.deadlineMs,
      concurrency: parts.concurrency,
    });
    this.running = drain;
    parts.log.info({}, "draining: moving this node's lobbies to its peers");
    parts.started();
    void drain.run().then((progress) => {
      parts.log.info({ progress }, "drain finished");
      this.ended.resolve(progress);
    });
    return { accepted: true, message: "draining" };
  }

  /** The running or finished drain, or null. */
  progress(): DrainProgress | null {
    return this.running?.progress() ?? null;
  }
}
