import { seededRandom } from "../../fleet/index.ts";

/** The kinds of fault the chaos harness applies. */
export const faultKinds = ["kill", "stop", "natsKill", "drain"] as const;
export type FaultKind = (typeof faultKinds)[number];

/** One planned fault: what, on which process (index), when, and when it is healed (ms from the start). */
export interface PlannedFault {
  readonly kind: FaultKind;
  /** Index of the Foyer node (kill, stop, drain) or nats-server (natsKill). */
  readonly target: number;
  readonly atMs: number;
  /** When the node is restarted, SIGCONT is sent or the nats-server restarted; equal to atMs for a drain. */
  readonly healAtMs: number;
}

/** What a schedule is planned for. */
export interface ScheduleOptions {
  readonly seed: number;
  readonly seconds: number;
  /** How many faults, of every kind together. */
  readonly faults: number;
  readonly nodes: number;
  readonly nats: number;
  readonly failureTimeoutMs: number;
  /** Only these kinds (default every kind the cluster's size allows). */
  readonly kinds?: readonly FaultKind[];
}

/** Weights of the kinds drawn after each kind has appeared once. */
const weights: Readonly<Record<FaultKind, number>> = { kill: 4, stop: 3, natsKill: 2, drain: 1 };

/**
 * Plans the faults of a run from its seed alone, so a seed replays the same schedule. The run is cut into
 * equal slots, one fault each, so every node fault is healed and has time to settle before the next one:
 * at most one node and one nats-server are ever down, which keeps 2 of 3 up. The first four faults are the
 * four kinds in a seeded order (a short run still sees each); later ones are drawn by weight.
 */
export function planFaults(options: ScheduleOptions): PlannedFault[] {
  const random = seededRandom(options.seed);
  const float = (): number => random.int(1_000_000) / 1_000_000;
  const runMs = options.seconds * 1000;
  // Faults start after a warm-up (bots have lobbies) and stop before the end (the last one heals in time).
  const firstMs = Math.min(5_000, runMs * 0.1);
  const lastMs = runMs * 0.85;
  const count = Math.max(0, options.faults);
  const slotMs = count === 0 ? 0 : (lastMs - firstMs) / count;
  const kinds = allowedKinds(options);
  const opening = [...kinds];
  for (let i = opening.length - 1; i > 0; i -= 1) {
    const j = random.int(i + 1);
    const a = opening[i];
    const b = opening[j];
    if (a !== undefined && b !== undefined) [opening[i], opening[j]] = [b, a];
  }
  const plan: PlannedFault[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = opening[i] ?? drawKind(kinds, random.int(1_000_000) / 1_000_000);
    if (kind === undefined) break; // no kind this cluster can take
    const slotStart = firstMs + i * slotMs;
    const atMs = Math.round(slotStart + float() * slotMs * 0.15);
    const size = kind === "natsKill" ? options.nats : options.nodes;
    plan.push({ kind, target: random.int(size), atMs, healAtMs: atMs + healDelayMs(kind, options, float()) });
  }
  return plan;
}

/** The kinds a cluster of this size can take while keeping two nodes and two nats-servers up. */
function allowedKinds(options: ScheduleOptions): FaultKind[] {
  return faultKinds.filter(
    (kind) =>
      (options.kinds === undefined || options.kinds.includes(kind)) &&
      (kind === "natsKill" ? options.nats >= 3 : options.nodes >= 3),
  );
}

function drawKind(kinds: readonly FaultKind[], u: number): FaultKind | undefined {
  const total = kinds.reduce((sum, kind) => sum + weights[kind], 0);
  let left = u * total;
  for (const kind of kinds) {
    left -= weights[kind];
    if (left < 0) return kind;
  }
  return kinds[kinds.length - 1];
}

/**
 * How long a fault lasts. A killed node comes back after its peers declared it dead (a start while its
 * old incarnation still heartbeats is refused); a stopped one is thawed past the failure timeout, so it
 * finds itself tombstoned; a nats-server is down long enough for its streams to elect new leaders.
 */
function healDelayMs(kind: FaultKind, options: ScheduleOptions, u: number): number {
  const timeout = options.failureTimeoutMs;
  switch (kind) {
    case "kill":
      return Math.round(timeout + 1_000 + u * 2_000);
    case "stop":
      return Math.round(timeout + 1_000 + u * 1_500);
    case "natsKill":
      return Math.round(3_000 + u * 3_000);
    case "drain":
      return 0;
  }
}

/** One line per fault, for a failing run's report. */
export function describeSchedule(plan: readonly PlannedFault[]): string {
  return plan
    .map((f) => {
      const what = f.kind === "natsKill" ? `nats-server ${f.target + 1}` : `node n${f.target + 1}`;
      const heal = f.kind === "drain" ? "" : `, healed at ${(f.healAtMs / 1000).toFixed(1)} s`;
      return `${(f.atMs / 1000).toFixed(1)} s ${f.kind} ${what}${heal}`;
    })
    .join("\n");
}
