import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { FilterCall, WorkerReport } from "./filter-worker.ts";
import type { FilterInput } from "./filter-registry.ts";

/**
 * Runs matchmaking filters (studio code) off the actors, in worker threads, one call per worker at a time
 * with a time limit: a synchronous loop cannot be interrupted any other way than by terminating its
 * worker. Every failure — a throw, no answer in time, no such filter, no free worker — is a reject and a
 * log line; `run` never rejects, so the queue waiting on it never stalls.
 */

/** How the pool runs. */
export interface FilterPoolOptions {
  /** The filters module (a file URL or path): its default export is a `FilterRegistry`. */
  readonly module: string | URL;
  /** Workers running at once. */
  readonly size?: number;
  /** How long one call may run in its worker before the worker is terminated and replaced. */
  readonly callTimeoutMs?: number;
  /** How long a call may wait for a free, loaded worker. */
  readonly waitTimeoutMs?: number;
  /** Calls waiting beyond this are rejected at once. */
  readonly maxWaiting?: number;
  /** How soon a worker that died before it was ready (its module does not load) is started again. */
  readonly restartDelayMs?: number;
  readonly log: Pick<Logger, "warn">;
}

interface Call {
  readonly id: number;
  readonly name: string;
  readonly data: FilterInput;
  readonly done: (accept: boolean) => void;
}

interface Slot {
  worker: Worker | undefined;
  ready: boolean;
  running: { call: Call; timer: NodeJS.Timeout } | undefined;
}

const bootUrl = new URL("../worker-boot.js", import.meta.url);
const workerUrl = new URL("./filter-worker.ts", import.meta.url);

/** A pool of filter workers. */
export class FilterPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Call[] = [];
  private readonly module: string;
  private readonly callTimeoutMs: number;
  private readonly waitTimeoutMs: number;
  private readonly maxWaiting: number;
  private readonly restartDelayMs: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: FilterPoolOptions) {
    const module = options.module;
    this.module = module instanceof URL ? module.href : new URL(module, `file://${process.cwd()}/`).href;
    this.callTimeoutMs = options.callTimeoutMs ?? 250;
    this.waitTimeoutMs = options.waitTimeoutMs ?? 2_000;
    this.maxWaiting = options.maxWaiting ?? 10_000;
    this.restartDelayMs = options.restartDelayMs ?? 1_000;
    for (let i = 0; i < (options.size ?? 2); i++) this.slots.push(this.spawn());
  }

  /** Runs filter `name` on one candidate; true only when it answered `{ accept: true }` in time. */
  run(name: string, data: FilterInput): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.closed || this.waiting.length >= this.maxWaiting) {
        this.options.log.warn({ filter: name }, "filter pool cannot take the call; candidate rejected");
        resolve(false);
        return;
      }
      const id = this.nextId++;
      const waitTimer = setTimeout(() => {
        const at = this.waiting.findIndex((c) => c.id === id);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        this.options.log.warn({ filter: name }, "no filter worker was free in time; candidate rejected");
        resolve(false);
      }, this.waitTimeoutMs);
      const done = (accept: boolean): void => {
        clearTimeout(waitTimer);
        resolve(accept);
      };
      this.waiting.push({ id, name, data, done });
      this.dispatch();
    });
  }

  /** Terminates every worker; calls still waiting or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const call of this.waiting.splice(0)) call.done(false);
    await Promise.all(
      this.slots.map((slot) => {
        this.finish(slot, false);
        const worker = slot.worker;
        slot.worker = undefined;
        return worker?.terminate() ?? Promise.resolve(0);
      }),
    );
  }

  /** A slot with its worker starting. */
  private spawn(): Slot {
    const slot: Slot = { worker: undefined, ready: false, running: undefined };
    this.start(slot);
    return slot;
  }

  /** Starts a fresh worker in the slot; reports of any older worker of the slot are ignored. */
  private start(slot: Slot): void {
    const worker = new Worker(bootUrl, { workerData: { worker: workerUrl.href, module: this.module } });
    slot.worker = worker;
    slot.ready = false;
    worker.on("message", (report: WorkerReport) => {
      if (slot.worker === worker) this.report(slot, report);
    });
    worker.on("error", (err) => {
      if (slot.worker !== worker || this.closed) return;
      this.options.log.warn({ err, filter: slot.running?.call.name }, "filter worker failed; replaced");
      this.replace(slot, slot.ready ? 0 : this.restartDelayMs);
    });
    // A filter may end its thread (process.exit in a worker ends only the worker).
    worker.on("exit", (code) => {
      if (slot.worker !== worker || this.closed) return;
      this.options.log.warn({ code, filter: slot.running?.call.name }, "filter worker exited; replaced");
      this.replace(slot, slot.ready ? 0 : this.restartDelayMs);
    });
    worker.unref();
  }

  private report(slot: Slot, report: WorkerReport): void {
    if (report.type === "ready") {
      slot.ready = true;
      this.dispatch();
      return;
    }
    if (slot.running?.call.id !== report.id) return;
    if (report.type === "failed") {
      this.options.log.warn(
        { filter: slot.running.call.name, error: report.error },
        "filter threw; candidate rejected",
      );
    }
    this.finish(slot, report.type === "verdict" && report.accept);
    this.dispatch();
  }

  /** Ends the slot's running call with this answer. */
  private finish(slot: Slot, accept: boolean): void {
    const running = slot.running;
    if (running === undefined) return;
    slot.running = undefined;
    clearTimeout(running.timer);
    running.call.done(accept);
  }

  /**
   * The worker is dead or stuck: its call is rejected and a fresh worker takes its place — after a delay
   * when it never got ready, so a module that does not load is not restarted in a tight loop.
   */
  private replace(slot: Slot, delayMs = 0): void {
    this.finish(slot, false);
    const old = slot.worker;
    slot.worker = undefined;
    slot.ready = false;
    void old?.terminate().catch(() => undefined);
    if (this.closed) return;
    if (delayMs === 0) {
      this.start(slot);
      return;
    }
    setTimeout(() => {
      if (!this.closed && slot.worker === undefined) this.start(slot);
    }, delayMs).unref();
  }

  /** Hands waiting calls to loaded, idle workers. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.running !== undefined) continue;
      const call = this.waiting.shift();
      if (call === undefined) return;
      const timer = setTimeout(() => {
        this.options.log.warn(
          { filter: call.name, limitMs: this.callTimeoutMs },
          "filter took too long; candidate rejected",
        );
        this.replace(slot);
        this.dispatch();
      }, this.callTimeoutMs);
      slot.running = { call, timer };
      const message: FilterCall = { id: call.id, name: call.name, data: call.data };
      slot.worker?.postMessage(message);
    }
  }
}
