// Heap bytes per actor for the answers table of an actor that never keeps an answer (a seated player's
// registry entry, a directory): 100,000 tables held after a full GC. Run with
// `node --expose-gc --import tsx ops/bench/result-table-bytes.ts`.
import { defaultResultRetentionMs, ResultTable } from "../../actors/runtime/request-results.ts";
import { defaultResultSessions, maxResultsPerSession } from "../../actors/runtime/index.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const bounds = {
  retentionMs: defaultResultRetentionMs,
  maxSessions: defaultResultSessions,
  perSession: maxResultsPerSession,
};
const tables: ResultTable[] = [];
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 100_000; i++) tables.push(new ResultTable(bounds));
gc();
const bytes = (process.memoryUsage().heapUsed - before) / tables.length;
process.stdout.write(
  `${Math.round(bytes)} B of heap per answers table that holds no answer (${tables.length} held)\n`,
);
