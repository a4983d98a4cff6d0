// Preloaded into a process whose heap a bench takes apart (foyer-heap-breakdown.ts): SIGUSR2 writes a heap
// snapshot (which runs a full GC first) to `$HEAP_SNAPSHOT_DIR/<pid>-<n>.heapsnapshot`, then an empty
// `<pid>-<n>.done` beside it, so the bench knows the file is whole.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";

const dir = process.env.HEAP_SNAPSHOT_DIR;
let taken = 0;
if (dir)
  process.on("SIGUSR2", () => {
    const n = taken++;
    writeHeapSnapshot(join(dir, `${process.pid}-${n}.heapsnapshot`));
    writeFileSync(join(dir, `${process.pid}-${n}.done`), "");
  });
