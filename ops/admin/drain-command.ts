import cliProgress from "cli-progress";
import { type NatsAuth, NatsKvStore, connectNats, decodeNodeRecord, isTombstone } from "../../fleet/index.ts";
import { fetchStatuses } from "./status-command.ts";
import type { NodeStatus } from "./node-status.ts";

/** How `foyer drain` reaches the node. */
export interface DrainCommandOptions {
  /** The node's admin API; without it, the node's heartbeat in NATS names it. */
  readonly admin?: string;
  /** NATS URLs, to find `node`'s admin API in the `nodes` bucket. */
  readonly nats?: readonly string[];
  /** Credentials for those NATS servers (the node's own `FOYER_NATS_*` settings). */
  readonly natsAuth?: NatsAuth;
  readonly token?: string;
  readonly json: boolean;
  /** How often the progress is read (default 200 ms). */
  readonly pollMs?: number;
  /** Status reads in a row without an answer after which the node counts as exited (default 5). */
  readonly exitedAfter?: number;
}

/** What `foyer drain --json` prints. */
export interface DrainSummary {
  readonly node: string;
  readonly state: "done" | "deadline" | "exited" | "refused";
  readonly total: number;
  readonly moved: number;
  readonly left: number;
  readonly waitingForRoom: number;
  readonly failed: number;
  readonly seconds: number;
  readonly message?: string;
}

type Progress = NonNullable<NodeStatus["drain"]>;

/**
 * `foyer drain <node>`: asks the node to drain (`POST /drain`), shows its progress live — lobbies left,
 * moved, waiting for a room to end, failed — and prints a summary (`--json`: one JSON object) once the
 * drain ends or the node exits. Exit code 0 when the node was drained, 1 when it was refused or could not
 * be reached.
 */
export async function runDrain(
  node: string,
  options: DrainCommandOptions,
  write: (text: string) => void,
): Promise<number> {
  const startedAt = Date.now();
  const admin = options.admin ?? (await adminOf(node, options.nats ?? [], options.natsAuth ?? {}));
  if (admin === null) {
    write(`foyer drain: no admin API known for node ${node} (pass --admin <url> or --nats <urls>)\n`);
    return 1;
  }
  const headers = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  let answer: Response;
  try {
    answer = await fetch(new URL("/drain", admin), { method: "POST", headers });
  } catch (error) {
    write(`foyer drain: ${admin} did not answer: ${(error as Error).message}\n`);
    return 1;
  }
  const body = (await answer.json().catch(() => ({}))) as { message?: string; error?: string };
  if (!answer.ok) {
    const message = body.message ?? body.error ?? `HTTP ${answer.status}`;
    if (options.json) write(`${JSON.stringify(summaryOf(node, "refused", null, startedAt, message))}\n`);
    else write(`foyer drain: ${node} refused: ${message}\n`);
    return 1;
  }
  const bar = options.json ? null : new cliProgress.SingleBar(barOptions, cliProgress.Presets.shades_classic);
  let last: Progress | null = null;
  let state: DrainSummary["state"] = "exited";
  let unanswered = 0;
  for (;;) {
    const [row] = await fetchStatuses([admin], options.token === undefined ? {} : { token: options.token });
    if (row === undefined || !("status" in row)) {
      // A node busy moving keys (or waiting on NATS) may miss one status: it has exited only when it
      // stays silent.
      if (++unanswered >= (options.exitedAfter ?? 5)) break;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
      continue;
    }
    unanswered = 0;
    const progress = row.status.drain ?? null;
    if (progress !== null) {
      if (last === null) bar?.start(Math.max(progress.total, 1), 0, counts(progress));
      last = progress;
      bar?.setTotal(Math.max(progress.total, 1));
      bar?.update(progress.moved, counts(progress));
      if (progress.state !== "running") {
        state = progress.state;
        break;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
  bar?.stop();
  const summary = summaryOf(node, state, last, startedAt);
  if (options.json) write(`${JSON.stringify(summary)}\n`);
  else {
    write(
      `${node}: ${summary.state} in ${summary.seconds.toFixed(1)} s — ${summary.moved} moved, ${summary.left} left, ` +
        `${summary.waitingForRoom} waiting for a room, ${summary.failed} failed moves\n`,
    );
  }
  return 0;
}

const barOptions = {
  format:
    "drain |{bar}| {value}/{total} moved · {left} left · {waitingForRoom} waiting for a room · {failed} failed",
  hideCursor: true,
};

function counts(progress: Progress): Record<string, number> {
  return { left: progress.left, waitingForRoom: progress.waitingForRoom, failed: progress.failed };
}

function summaryOf(
  node: string,
  state: DrainSummary["state"],
  progress: Progress | null,
  startedAt: number,
  message?: string,
): DrainSummary {
  return {
    node,
    state,
    total: progress?.total ?? 0,
    moved: progress?.moved ?? 0,
    left: progress?.left ?? 0,
    waitingForRoom: progress?.waitingForRoom ?? 0,
    failed: progress?.failed ?? 0,
    seconds: (Date.now() - startedAt) / 1000,
    ...(message === undefined ? {} : { message }),
  };
}

/** The admin URL `node` publishes in its heartbeat, or null. */
async function adminOf(node: string, nats: readonly string[], auth: NatsAuth): Promise<string | null> {
  if (nats.length === 0) return null;
  const nc = await connectNats({ ...auth, servers: [...nats] });
  try {
    const nodes = await new NatsKvStore(nc).bucket("nodes");
    const entry = await nodes.get(node);
    if (entry === null) return null;
    const record = decodeNodeRecord(entry.value);
    return isTombstone(record) ? null : (record.admin ?? null);
  } finally {
    await nc.close();
  }
}

/**
 * `foyer drain --json`, asked again while it is refused because the node sees no live peer that could take
 * its keys: right after a start, or while a peer's heartbeat is late on a loaded machine, that is a moment,
 * not an answer. Gives up after about 10 s of refusals. Returns the exit code and the last summary.
 */
export async function drainUntilAccepted(
  node: string,
  options: Omit<DrainCommandOptions, "json">,
): Promise<{ code: number; summary: DrainSummary }> {
  for (let attempt = 0; ; attempt++) {
    let last = "";
    const code = await runDrain(node, { ...options, json: true }, (text) => (last = text));
    const summary = JSON.parse(last) as DrainSummary;
    if (summary.state !== "refused" || attempt >= 50) return { code, summary };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
