import { parentPort, workerData } from "node:worker_threads";
import type { FilterRegistry } from "./filter-registry.ts";

/**
 * One filter worker: loads the studio's filters module, says it is ready, then answers one call at a time.
 * A call that never returns is the pool's to end: it terminates this worker.
 */

/** A call the pool sends. */
export interface FilterCall {
  readonly id: number;
  readonly name: string;
  readonly data: unknown;
}

/** What the worker sends back: ready once loaded, then one answer per call. */
export type WorkerReport =
  | { readonly type: "ready" }
  | { readonly type: "verdict"; readonly id: number; readonly accept: boolean }
  | { readonly type: "failed"; readonly id: number; readonly error: string };

const port = parentPort;
if (port === null) throw new Error("filter-worker runs only in a worker thread");
const { module } = workerData as { module: string };
const loaded = (await import(module)) as { default?: FilterRegistry };
const filters: FilterRegistry = loaded.default ?? {};

const report = (r: WorkerReport): void => {
  port.postMessage(r);
};

port.on("message", (call: FilterCall) => {
  const filter = Object.hasOwn(filters, call.name) ? filters[call.name] : undefined;
  void (async () => {
    try {
      if (filter === undefined) throw new Error(`no filter named ${call.name}`);
      const answer: unknown = await filter(call.data as never);
      const accept =
        typeof answer === "object" && answer !== null && "accept" in answer && answer.accept === true;
      report({ type: "verdict", id: call.id, accept });
    } catch (err) {
      report({
        type: "failed",
        id: call.id,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
  })();
});
report({ type: "ready" });
