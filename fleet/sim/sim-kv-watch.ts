import type { KvEntry, KvWatch, KvWatchOptions } from "../kv.ts";
import type { MemoryBucketData } from "../memory/index.ts";
import type { SimRandom } from "./sim-random.ts";
import type { SimHost, VirtualLoop } from "./virtual-loop.ts";

/** What a simulated watch needs from the world: its loop, random source, and the node's reach of the store. */
export interface SimWatchWorld {
  readonly loop: VirtualLoop;
  readonly random: SimRandom;
  /** True while the watching node cannot reach the store (an election, a partition). */
  readonly unreachable: (at: number) => boolean;
}

/** How long a watch waits before it looks again while the store is out of reach. */
const stalledRetryMs = 100;

/**
 * A JetStream KV watch as the process `host` sees it: the existing entries, then every later write in
 * revision order, each delivered as an event of the virtual loop on that process a few ms after it landed
 * (a paused process gets them late, a stopped one never). While the store is out of reach nothing is
 * delivered; what queued up arrives, in order, once it is back — as a NATS consumer resumes.
 */
export function simWatch(
  data: MemoryBucketData,
  host: SimHost,
  world: SimWatchWorld,
  opts: KvWatchOptions,
  onEntry: (entry: KvEntry) => void,
): KvWatch {
  const prefix = opts.prefix ?? "";
  const queue: KvEntry[] = [...data.existing(prefix, opts.fromRevision)];
  let stopped = false;
  let armed = false;
  const deliver = (): void => {
    armed = false;
    if (stopped || host.stopped) return;
    if (world.unreachable(world.loop.now)) {
      arm(stalledRetryMs);
      return;
    }
    const entry = queue.shift();
    if (entry !== undefined) onEntry(copyEntry(entry));
    if (queue.length > 0) arm(world.random.between(0, 2));
  };
  const arm = (delay: number): void => {
    if (armed) return;
    armed = true;
    world.loop.schedule(world.loop.now + delay, deliver, host);
  };
  const unlisten = data.listen({
    prefix,
    notify: (entry) => {
      queue.push(entry);
      arm(world.random.between(1, 15));
    },
  });
  if (queue.length > 0) arm(world.random.between(1, 15));
  return {
    stop: () => {
      stopped = true;
      queue.length = 0;
      unlisten();
    },
  };
}

/** A fresh copy of a stored entry: the watcher may keep or mutate it. */
export function copyEntry(entry: KvEntry): KvEntry {
  return {
    key: entry.key,
    value: new Uint8Array(entry.value),
    revision: entry.revision,
    operation: entry.operation,
  };
}
