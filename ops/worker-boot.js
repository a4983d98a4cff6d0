// The entry of a worker thread running a TypeScript module (`workerData.worker`, a URL): TypeScript needs
// tsx's loader, which a worker does not inherit. Used by the matchmaking filter pool and the drain bench.
import { register } from "tsx/esm/api";
import { workerData } from "node:worker_threads";

register();
await import(workerData.worker);
