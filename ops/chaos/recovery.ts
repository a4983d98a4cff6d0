import { expectationOf } from "./ack-replay.ts";
import type { ChaosJournal } from "./chaos-journal.ts";
import { opsByBot } from "./state-audit.ts";

/** How long each node fault took to heal for the bots it hit. */
export interface Recovery {
  /** Per fault that hit a bot: ms from the fault to every affected bot served again. */
  readonly recoveryMs: number[];
  /** Faults with a bot never served again before the run ended. */
  readonly unrecovered: string[];
}

/**
 * For each kill or stop of a node: the bots connected to it at that moment are affected; each is served
 * again at its first welcome after the fault (any node) followed, when it was in a lobby, by a frame of
 * that lobby naming it. The fault's recovery is the latest of those.
 */
export function measureRecovery(journal: ChaosJournal, endAt: number): Recovery {
  const recoveryMs: number[] = [];
  const unrecovered: string[] = [];
  for (const fault of journal.faults) {
    if (!fault.applied || (fault.kind !== "kill" && fault.kind !== "stop")) continue;
    const node = fault.target;
    const latest = new Map<string, { connected: boolean; node: string | null }>();
    for (const c of journal.connections) if (c.at <= fault.at) latest.set(c.bot, c);
    const affected = [...latest].filter(([, c]) => c.connected && c.node === node).map(([bot]) => bot);
    if (affected.length === 0) continue;
    let worst = 0;
    let missing: string | undefined;
    for (const bot of affected) {
      const served = servedAgainAt(journal, bot, fault.at);
      if (served === undefined || served > endAt) {
        missing ??= bot;
        continue;
      }
      worst = Math.max(worst, served - fault.at);
    }
    if (missing !== undefined)
      unrecovered.push(`${fault.kind} ${node} at ${fault.at}: ${missing} not served again`);
    else recoveryMs.push(worst);
  }
  return { recoveryMs, unrecovered };
}

/**
 * When a bot hit by a fault at `at` was served again: its next welcome, and then — if it was in a lobby —
 * the first frame of that lobby naming it or the first request acknowledged after the welcome, whichever
 * comes first (a bot that left in the meantime gets no more frames of it).
 */
function servedAgainAt(journal: ChaosJournal, bot: string, at: number): number | undefined {
  const back = journal.connections.find((c) => c.bot === bot && c.at > at && c.connected);
  if (!back) return undefined;
  const before = expectationOf(opsByBot(journal.ops.filter((op) => op.endedAt <= at)).get(bot) ?? []);
  if (before.kind !== "in") return back.at;
  const key = `lobby/${before.code}`;
  const frame = journal.heard.find(
    (f) =>
      f.bot === bot &&
      f.key === key &&
      f.at >= back.at &&
      (f.lobby?.members.some((m) => m.player === bot) ?? false),
  );
  const acked = journal.ops.find((op) => op.bot === bot && op.outcome === "acked" && op.endedAt >= back.at);
  const times = [frame?.at, acked?.endedAt].filter((t): t is number => t !== undefined);
  return times.length === 0 ? undefined : Math.min(...times);
}

/** The nearest-rank percentile (0–100) of `values`; 0 when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return Math.round(sorted[rank - 1] ?? 0);
}
