import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SingleBar } from "cli-progress";
import { seededRandom } from "../../fleet/index.ts";
import { auditFailed, auditRun, type AuditReport } from "./chaos-audit.ts";
import { ChaosBot, type BotContext } from "./chaos-bot.ts";
import { ChaosFleet } from "./chaos-fleet.ts";
import { emptyJournal, type ChaosJournal } from "./chaos-journal.ts";
import { drainTeam } from "./drain-join-bots.ts";
import { kindBots } from "./kind-bots.ts";
import { describeSchedule, planFaults, type FaultKind, type PlannedFault } from "./fault-schedule.ts";
import { runFaults } from "./fault-runner.ts";
import { probeUnseen, settle } from "./settle.ts";
import { watchSnapshots } from "./snapshot-history.ts";
import { summarize, summaryText, type ChaosSummary } from "./chaos-summary.ts";

/** Options of `foyer chaos`. */
export interface ChaosOptions {
  readonly nodes: number;
  readonly nats: number;
  readonly seconds: number;
  /** How many faults to apply, of all kinds. */
  readonly faults: number;
  readonly seed: number;
  /** Bots playing (default 8 per node). */
  readonly bots?: number;
  /** Only faults of these kinds (default every kind). */
  readonly kinds?: readonly FaultKind[];
  /** Add each node's drain team (bots that join lobbies while their node drains; default true). */
  readonly drainTeams?: boolean;
  /** Activity-lobby bots and as many matchmaking-queue bots (default 3 of each; 0 for none). */
  readonly kindBots?: number;
  readonly failureTimeoutMs?: number;
  /** How long the healed cluster may take to settle before the audit (default 30 s + the failure timeout). */
  readonly settleMs?: number;
  /** Draw the live progress line (on stderr). */
  readonly progress?: boolean;
  /** Where the summary and notes go (default: nowhere). */
  readonly print?: (line: string) => void;
}

/** What a run produced. */
export interface ChaosResult {
  readonly summary: ChaosSummary;
  readonly report: AuditReport;
  readonly schedule: readonly PlannedFault[];
  readonly journal: ChaosJournal;
  /** The node logs of a failing run. */
  readonly logsDir: string | undefined;
  /** True when lostAcks, lostLobbies, dualOwners, strandedClients, orderViolations or unheardChanges is not 0. */
  readonly failed: boolean;
}

const callTimeoutMs = 20_000;

/**
 * A chaos run: a local fleet under a load of SDK bots, faults from the seed's schedule, then
 * everything healed, the cluster settled, and the run audited against what was acknowledged and heard.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const print = options.print ?? ((): void => undefined);
  const failureTimeoutMs = options.failureTimeoutMs ?? 3_000;
  const schedule = planFaults({ ...options, failureTimeoutMs });
  print(
    `chaos seed ${options.seed}: ${options.nodes} nodes, ${options.nats} nats-servers, ${options.seconds} s`,
  );
  print(`schedule:\n${describeSchedule(schedule)}`);
  const journal = emptyJournal();
  const fleet = await ChaosFleet.start({ nodes: options.nodes, nats: options.nats, failureTimeoutMs });
  const bots: ChaosBot[] = [];
  let history: Awaited<ReturnType<typeof watchSnapshots>> | undefined;
  try {
    history = await watchSnapshots(fleet.nats.urls, Math.min(3, options.nats), (w) => journal.writes.push(w));
    bots.push(...makeBots(fleet, journal, options));
    await Promise.all(bots.map((b) => b.client.connect()));
    const startedAt = Date.now();
    const endsAt = startedAt + options.seconds * 1000;
    const progress =
      options.progress === true ? startProgress(options.seconds, journal, fleet, startedAt) : undefined;
    const errors: string[] = [];
    const faults = runFaults(schedule, {
      fleet,
      startedAt,
      endsAt,
      record: (f) => journal.faults.push(f),
      onError: (what, error) => errors.push(`${what}: ${String(error)}`),
    });
    await Promise.all(bots.map((b) => b.play(() => Date.now() >= endsAt)));
    await faults;
    progress?.stop();
    print("load stopped; healing the cluster and letting it settle");
    await fleet.healAll();
    const views = await settle(bots, journal.ops, options.settleMs ?? 30_000 + failureTimeoutMs);
    const probes = await probeUnseen(views, journal.ops, fleet.urls, fleet.tokenKey, callTimeoutMs);
    const report = auditRun(journal, views, probes, Date.now());
    const summary = summarize(options.seed, options.seconds, journal, report);
    const failed = auditFailed(report);
    for (const e of errors) print(`harness error: ${e}`);
    print(summaryText(summary, report, journal));
    const logsDir = failed ? writeLogs(fleet, journal, report) : undefined;
    if (failed) {
      print(`FAILED: replay with --seed ${options.seed}; schedule:\n${describeSchedule(schedule)}`);
      print(`node logs: ${logsDir ?? ""}`);
    }
    return { summary, report, schedule, journal, logsDir, failed };
  } finally {
    for (const b of bots) b.client.close();
    await history?.stop();
    await fleet.stop();
  }
}

/**
 * The load: 8 lobby bots per node unless told, the activity and queue bots, and each node's drain team,
 * each with its own seeded random source derived from the run's seed.
 */
function makeBots(fleet: ChaosFleet, journal: ChaosJournal, options: ChaosOptions): ChaosBot[] {
  let opId = 0;
  const ctx: BotContext = {
    urls: fleet.urls,
    tokenKey: fleet.tokenKey,
    journal,
    codes: [],
    nextOpId: () => (opId += 1),
    callTimeoutMs,
  };
  const count = options.bots ?? 8 * options.nodes;
  const randomOf = (i: number) => seededRandom((options.seed * 7_919 + i * 104_729) >>> 0);
  const bots = Array.from({ length: count }, (_, i) => new ChaosBot(`bot-${i + 1}`, ctx, randomOf(i)));
  const kinds = options.kindBots ?? 3;
  bots.push(...kindBots(ctx, kinds, (i) => randomOf(count + options.nodes * 8 + i)));
  if (options.drainTeams === false) return bots;
  const teams = Array.from({ length: options.nodes }, (_, node) =>
    drainTeam(ctx, node, (i) => randomOf(count + node * 8 + i)),
  );
  return [...bots, ...teams.flat()];
}

/** A progress line on stderr: time, ops, acks, faults applied, what is up. */
function startProgress(
  seconds: number,
  journal: ChaosJournal,
  fleet: ChaosFleet,
  startedAt: number,
): { stop(): void } {
  const bar = new SingleBar({
    format:
      "chaos [{bar}] {value}/{total} s | ops {ops} acked {acked} | faults {faults} | nodes up {nodes} nats up {nats} | {last}",
    hideCursor: true,
  });
  const payload = (): Record<string, string | number> => {
    const last = journal.faults.at(-1);
    return {
      ops: journal.ops.length,
      acked: journal.ops.filter((op) => op.outcome === "acked").length,
      faults: journal.faults.filter((f) => f.applied).length,
      nodes: fleet.nodesUp,
      nats: fleet.natsUp,
      last: last ? `${last.kind} ${last.target}${last.applied ? "" : " (skipped)"}` : "-",
    };
  };
  bar.start(seconds, 0, payload());
  const timer = setInterval(() => {
    bar.update(Math.min(seconds, Math.floor((Date.now() - startedAt) / 1000)), payload());
  }, 250);
  return {
    stop() {
      clearInterval(timer);
      bar.update(seconds, payload());
      bar.stop();
    },
  };
}

/** Node logs, the journal and the findings of a failing run, for whoever reads it next. */
function writeLogs(fleet: ChaosFleet, journal: ChaosJournal, report: AuditReport): string {
  const dir = mkdtempSync(join(tmpdir(), "foyer-chaos-logs-"));
  writeFileSync(join(dir, "journal.json"), JSON.stringify(journal));
  writeFileSync(join(dir, "report.json"), JSON.stringify(report, null, 2));
  for (const [id, text] of fleet.logs()) writeFileSync(join(dir, `${id}.log`), text);
  return dir;
}
