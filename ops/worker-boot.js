// The entry of a filter worker: TypeScript modules need tsx's loader, which a worker does not inherit.
import { register } from "tsx/esm/api";
import { workerData } from "node:worker_threads";

register();
await import(workerData.worker);
