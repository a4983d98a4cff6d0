import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { ErrorCodes, type RuntimeEvents } from "../../actors/runtime/index.ts";
import type { RedirectReason, RequestFrame } from "../../gateway/index.ts";

/** What the gauges read at each scrape: counts the node keeps anyway. */
export interface NodeCounts {
  /** Sessions this node holds: with a socket, or detached and still resumable. */
  sessions(): number;
  /** Players in a lobby (private or activity) as this node's gateway knows them. */
  members(): number;
  /**
   * In a fleet: the keys this node owns now, by kind (from the claims it holds), so lobbies that moved
   * here by a migration or a failover count, and those that moved away do not. Without it, lobbies are
   * counted as created and stopped here (one node: the same thing).
   */
  owned?(): ReadonlyMap<string, number> | undefined;
  /**
   * Players waiting in each matchmaking queue, by lobby type: every configured type, 0 where its queue
   * is not live on this node (owned by another node, or empty and passivated).
   */
  queueDepths?(): ReadonlyMap<string, number>;
}

/** The actor kinds that are lobbies: their keys' first segment. */
const lobbyKinds = new Set(["lobby", "activityLobby", "mmlobby"]);

/** The kind of a key: `lobby/AB12CD` → `lobby`. */
function kindOf(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? key : key.slice(0, slash);
}

/** Latency buckets in seconds, from a sub-millisecond in-memory answer to a stalled NATS leader. */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/**
 * How often the event-loop delay is sampled (prom-client's `nodejs_eventloop_lag_*` percentiles), in ms.
 * prom-client's default, 10 ms, wakes an idle node 100 times a second: 0.3 % of a core, a third of what
 * 1,000 idle lobbies of 8 may cost (docs/operations.md). Each sample is the interval plus the lag, so the
 * gauges read 0.05 s on an idle loop.
 */
export const eventLoopSampleMs = 50;

/** Buckets of a pause or a recovery that a player may notice, in seconds. */
const pauseBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * One node's Prometheus metrics, on a registry of its own (never prom-client's global one), so several
 * nodes in one process — tests, the bench — each count their own. The gateway's and the runtime's hooks
 * call the methods; `docs/operations.md` says what each metric means.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly lobbyCount = new Map<string, number>([...lobbyKinds].map((kind) => [kind, 0]));
  private readonly ops: Counter<"op" | "outcome">;
  private readonly opSeconds: Histogram<"op">;
  private readonly redirects: Counter<"reason">;
  private readonly persistSeconds: Histogram;
  private readonly rejected: Counter<"code">;
  private readonly closed: Counter<"reason">;
  private readonly migrations: Counter<"direction" | "result">;
  private readonly migrationPause: Histogram<"kind">;
  private readonly failovers: Counter;
  private readonly failoverRecovery: Histogram;

  constructor(readonly counts: NodeCounts) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: eventLoopSampleMs });
    // Registered in the order the exposition lists them.
    registerCountGauges(this.registry, counts, this.lobbyCount);
    const { counter, histogram } = metricsOn(this.registry);
    this.ops = counter(
      "foyer_ops_total",
      "Request frames answered, by frame type and outcome (ok or the error code)",
      ["op", "outcome"],
    );
    this.opSeconds = histogram(
      "foyer_op_duration_seconds",
      "Seconds from a request frame's arrival to its answer, by frame type",
      latencyBuckets,
      ["op"],
    );
    this.redirects = counter(
      "foyer_redirects_total",
      "Redirect frames sent to players, by reason (lobby, drain, moved)",
      ["reason"],
    );
    this.persistSeconds = histogram(
      "foyer_persist_duration_seconds",
      "Seconds a snapshot write took, every acknowledgement waits for one (runtime clock, whole ms)",
      latencyBuckets,
    );
    this.rejected = counter(
      "foyer_rejected_frames_total",
      "Frames answered with an error, by error code (UNAVAILABLE, which asks for a retry, is not counted)",
      ["code"],
    );
    this.closed = counter(
      "foyer_closed_sockets_total",
      "Sockets the node closed or turned away, by reason (RATE_LIMITED, HEARTBEAT, ORIGIN, ...)",
      ["reason"],
    );
    this.migrations = counter(
      "foyer_migrations_total",
      "Keys moved out of this node by its drain (result moved, kept, busy) or into it (adopted)",
      ["direction", "result"],
    );
    this.migrationPause = histogram(
      "foyer_migration_pause_seconds",
      "Seconds a key this node's drain moved (or tried to) kept its mailbox frozen, from the freeze to its messages going on, by kind (lobby, player, ...)",
      pauseBuckets,
      ["kind"],
    );
    this.failovers = counter("foyer_failovers_total", "Keys of dead nodes this node took over");
    this.failoverRecovery = histogram(
      "foyer_failover_recovery_seconds",
      "Seconds from this node learning that a lobby's node died to the lobby taken over (sealed) here; it restores at once",
      pauseBuckets,
    );
    registerQueueGauge(this.registry, counts);
  }

  /** The lobbies this node owns, every kind together. */
  get lobbies(): number {
    const owned = this.counts.owned?.();
    let total = 0;
    for (const [kind, n] of owned ?? this.lobbyCount) if (lobbyKinds.has(kind)) total += n;
    return total;
  }

  /**
   * A key of a dead node was taken over here; for a lobby, `recoverySeconds` since this node learned of
   * the death (undefined when it did not see the death: its own earlier process's keys, or before it ran).
   */
  tookOver(key: string, recoverySeconds?: number): void {
    this.failovers.inc();
    if (recoverySeconds !== undefined && lobbyKinds.has(kindOf(key))) {
      this.failoverRecovery.observe(recoverySeconds);
    }
  }

  /** A key this node's drain froze stayed frozen `seconds`, moved or kept. */
  migrationPaused(key: string, seconds: number): void {
    this.migrationPause.observe({ kind: kindOf(key) }, seconds);
  }

  /** A key moved: out by this node's drain (`moved` or `kept`), or in (`adopted`). */
  migrated(direction: "out" | "in", result: "moved" | "kept" | "busy" | "adopted"): void {
    this.migrations.inc({ direction, result });
  }

  /** The runtime events these metrics count (the node adds them to its own). */
  readonly runtimeEvents: Required<Pick<RuntimeEvents, "created" | "stopped" | "persisted">> = {
    created: (key) => {
      this.countLobby(key, 1);
    },
    stopped: (key) => {
      this.countLobby(key, -1);
    },
    persisted: (_key, elapsedMs) => {
      this.persistSeconds.observe(elapsedMs / 1000);
    },
  };

  /** A request frame was answered (the gateway's `onAnswered`). */
  answered(op: RequestFrame["type"], outcome: string, seconds: number): void {
    this.ops.inc({ op, outcome });
    this.opSeconds.observe({ op }, seconds);
  }

  /** A redirect frame was sent (the requests' `onRedirect`). */
  redirected(reason: RedirectReason): void {
    this.redirects.inc({ reason });
  }

  /**
   * A frame was refused, or a socket closed (`close:<reason>`) or turned away at the upgrade (`ORIGIN`,
   * `CONNECTION_LIMIT`) by the node: the gateway's `onRefused`.
   */
  refused(code: string): void {
    if (code in ErrorCodes) this.rejected.inc({ code });
    else this.closed.inc({ reason: code.replace(/^close:/, "") });
  }

  /** The Prometheus text of every metric, and its content type. */
  async exposition(): Promise<{ readonly text: string; readonly contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  private countLobby(key: string, by: 1 | -1): void {
    const kind = kindOf(key);
    if (!lobbyKinds.has(kind)) return;
    this.lobbyCount.set(kind, (this.lobbyCount.get(kind) ?? 0) + by);
  }
}

/** Counters and histograms on one registry, each a line at its call. */
function metricsOn(registry: Registry): {
  counter: <L extends string = never>(name: string, help: string, labelNames?: readonly L[]) => Counter<L>;
  histogram: <L extends string = never>(
    name: string,
    help: string,
    buckets: number[],
    labelNames?: readonly L[],
  ) => Histogram<L>;
} {
  const registers = [registry];
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers }),
    histogram: (name, help, buckets, labelNames = []) =>
      new Histogram({ name, help, labelNames, buckets, registers }),
  };
}

/** The gauges of what the node holds, read at each scrape: lobbies by kind, members, sessions. */
function registerCountGauges(
  registry: Registry,
  counts: NodeCounts,
  lobbyCount: ReadonlyMap<string, number>,
): void {
  const registers = [registry];
  new Gauge({
    name: "foyer_lobbies",
    help: "Lobbies this node owns, by kind (lobby, activityLobby, mmlobby)",
    labelNames: ["kind"],
    registers,
    collect() {
      const owned = counts.owned?.();
      for (const [kind, n] of lobbyCount) this.set({ kind }, owned ? (owned.get(kind) ?? 0) : n);
    },
  });
  new Gauge({
    name: "foyer_members",
    help: "Players in a lobby, counted at the node they are connected to",
    registers,
    collect() {
      this.set(counts.members());
    },
  });
  new Gauge({
    name: "foyer_sessions",
    help: "Player sessions on this node, connected or waiting to be resumed",
    registers,
    collect() {
      this.set(counts.sessions());
    },
  });
}

/** The gauge of players waiting in each matchmaking queue, by lobby type. */
function registerQueueGauge(registry: Registry, counts: NodeCounts): void {
  new Gauge({
    name: "foyer_queue_depth",
    help: "Players waiting in a matchmaking queue this node holds, by lobby type (matched players not counted)",
    labelNames: ["lobby_type"],
    registers: [registry],
    collect() {
      for (const [lobbyType, n] of counts.queueDepths?.() ?? []) this.set({ lobby_type: lobbyType }, n);
    },
  });
}
