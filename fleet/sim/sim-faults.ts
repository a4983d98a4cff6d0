import type { SimRandom } from "./sim-random.ts";

/** The faults a world can suffer, besides the store's per-operation refusals, timeouts and slow legs. */
export const faultKinds = [
  "kv-election",
  "partition",
  "pause",
  "clock-jump",
  "crash",
  "restart",
  "drain",
] as const;

/** One kind of fault (see `Fault`). */
export type FaultKind = (typeof faultKinds)[number];

/** One planned fault, at virtual time `at`. */
export type Fault =
  /** A NATS leader election: every operation of every node is refused for `ms` (4–9 s). */
  | { readonly kind: "kv-election"; readonly at: number; readonly ms: number }
  /** `node` is cut off from the store for `ms`. */
  | { readonly kind: "partition"; readonly at: number; readonly node: string; readonly ms: number }
  /** `node`'s process is frozen (SIGSTOP) for `ms`: no timer, no continuation runs, then all resume. */
  | { readonly kind: "pause"; readonly at: number; readonly node: string; readonly ms: number }
  /** `node`'s wall clock steps by `ms` (either way); its monotonic clock does not. */
  | { readonly kind: "clock-jump"; readonly at: number; readonly node: string; readonly ms: number }
  /** `node`'s process dies for good. */
  | { readonly kind: "crash"; readonly at: number; readonly node: string }
  /** `node`'s process dies and a new one starts `ms` later: a new incarnation under the same node id. */
  | { readonly kind: "restart"; readonly at: number; readonly node: string; readonly ms: number }
  /**
   * `node` drains its keys to its peers (the real Drain and Migrations), then leaves the fleet; when
   * `back`, a new process starts under its id `ms` after it left.
   */
  | {
      readonly kind: "drain";
      readonly at: number;
      readonly node: string;
      readonly back: boolean;
      readonly ms: number;
    };

export interface FaultPlanOptions {
  readonly kinds: readonly FaultKind[];
  /** Faults in the run: drawn between 1 and this. */
  readonly count: number;
  readonly nodes: readonly string[];
  /** Faults start after this and every one is over by `until`. */
  readonly from: number;
  readonly until: number;
}

/**
 * Draws a run's faults. Nodes that crash (or drain) for good are at most all but two, so the survivors can still
 * take over what the dead held.
 */
export function planFaults(random: SimRandom, options: FaultPlanOptions): Fault[] {
  const faults: Fault[] = [];
  if (options.kinds.length === 0) return faults;
  const crashed = new Set<string>();
  const count = random.between(1, Math.max(1, options.count));
  for (let i = 0; i < count; i++) {
    const at = random.between(options.from, options.until - 500);
    const room = options.until - at;
    const node = random.pick(options.nodes.filter((n) => !crashed.has(n)));
    const kind = random.pick(options.kinds);
    const ms = (min: number, max: number): number => Math.min(random.between(min, max), room);
    switch (kind) {
      case "kv-election":
        faults.push({ kind, at, ms: ms(4_000, 9_000) });
        break;
      case "partition":
        faults.push({ kind, at, node, ms: ms(500, 8_000) });
        break;
      case "pause":
        faults.push({ kind, at, node, ms: ms(300, 8_000) });
        break;
      case "clock-jump":
        faults.push({ kind, at, node, ms: (random.chance(0.5) ? 1 : -1) * random.between(100, 10_000) });
        break;
      case "crash":
        if (crashed.size < options.nodes.length - 2) {
          crashed.add(node);
          faults.push({ kind, at, node });
        } else {
          faults.push({ kind: "restart", at, node, ms: ms(100, 5_000) });
        }
        break;
      case "restart":
        faults.push({ kind, at, node, ms: ms(100, 5_000) });
        break;
      case "drain": {
        // One that never comes back counts as a crash for good: two nodes stay to take what is left.
        const back = crashed.size >= options.nodes.length - 2 || random.chance(0.6);
        if (!back) crashed.add(node);
        faults.push({ kind, at, node, back, ms: random.between(100, 3_000) });
        break;
      }
    }
  }
  return faults.sort((a, b) => a.at - b.at);
}

/** One line of the trace for a fault. */
export function describeFault(fault: Fault): string {
  const parts = Object.entries(fault)
    .filter(([name]) => name !== "kind" && name !== "at")
    .map(([name, value]) => `${name}=${String(value)}`);
  return `fault ${fault.kind} ${parts.join(" ")}`;
}
