import type { Scheduler } from "../../actors/runtime/index.ts";
import type { Bus } from "../bus.ts";
import type { KvBucket } from "../kv.ts";
import type { QueuedOp } from "./sim-counter.ts";
import type { SimHost } from "./virtual-loop.ts";

/**
 * How a node behaves. `correct` follows FLEET-PROTOCOL; the others are deliberately broken, to prove the
 * checks catch what they break.
 */
export type NodeVariant =
  | "correct"
  /** Acknowledges a write that succeeded without asking whether its lease still holds. */
  | "acks-without-lease"
  /** A registry that records a move but never drives the leave of the old lobby. */
  | "registry-never-leaves";

/** What a node needs from the world it runs in. */
export interface SimNodePorts {
  readonly node: string;
  readonly incarnation: string;
  readonly host: SimHost;
  readonly scheduler: Scheduler;
  readonly monotonic: () => number;
  readonly buckets: { readonly nodes: KvBucket; readonly claims: KvBucket; readonly lobbies: KvBucket };
  /** This process's connection to the simulated bus (adoptions). */
  readonly bus: Bus;
  /**
   * Sends ops for `key` to the process the router names now, in order, in one delivery: a handed-over
   * buffer, or a registry's `leave` to a lobby. Each op's answer comes back to its own callback.
   */
  readonly forward: (key: string, ops: readonly QueuedOp[]) => void;
  readonly variant: NodeVariant;
  /** A fresh incarnation id, for rejoining after being declared dead. */
  readonly newIncarnation: () => string;
  /** A unique write id. */
  readonly newWriteId: () => string;
  /** The node acknowledged `op` of `key` at `epoch`. */
  readonly acked: (key: string, op: string, epoch: number) => void;
  readonly trace: (line: string) => void;
}
