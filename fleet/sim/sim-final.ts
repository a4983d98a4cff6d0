import { decodeClaim, decodeSnapshot } from "../protocol/index.ts";
import type { FinalKey } from "./sim-checks.ts";
import type { SimKv } from "./sim-kv.ts";
import type { SimProcess } from "./sim-process.ts";
import type { VirtualLoop } from "./virtual-loop.ts";

/** How long a settled key's owner has to answer the final probe. */
const probeMs = 2_000;

/** What the final reading of a world looks at. */
export interface FinalWorld {
  readonly kv: SimKv;
  readonly loop: VirtualLoop;
  /** The process running under each node id now. */
  readonly processes: ReadonlyMap<string, SimProcess>;
}

/**
 * Each key's final ops (a counter's; null for a lobby's object state) and state in the store and, for a key with a snapshot, why nobody serves it (null: served).
 *
 * "Served" is what the invariant says: after the faults, a request for the key is answered. So a key is
 * served when its claim names the incarnation running under that node id, that process holds a fresh
 * lease, and it answers a probe (a `get`, which changes nothing) within `probeMs`. Whether the actor
 * happens to be in memory is not asked: an owner may have passivated it, or not yet restored it after
 * a takeover whose seal the next read makes — both are served by loading it, which the probe does. The
 * probe is stricter than asking for a live actor: a key in memory whose mailbox no longer runs fails it.
 */
export async function finalKeys(
  world: FinalWorld,
  keys: readonly string[],
): Promise<(FinalKey & { readonly state: unknown })[]> {
  const read = keys.map((key) => {
    const entry = world.kv.state("lobbies").get(key);
    const snapshot = entry === undefined ? null : decodeSnapshot(entry.value);
    const ops = snapshot === null || !Array.isArray(snapshot.state) ? null : snapshot.state.map(String);
    const state: unknown = snapshot === null ? null : snapshot.state;
    return { key, ops, state, unserved: snapshot === null ? Promise.resolve(null) : whyUnserved(world, key) };
  });
  const until = world.loop.now + probeMs + 100;
  await world.loop.runUntil(until);
  return Promise.all(
    read.map(async ({ key, ops, state, unserved }) => ({ key, ops, state, unserved: await unserved })),
  );
}

/** Why `key` is not served now, or null once its owner answered the probe. */
function whyUnserved(world: FinalWorld, key: string): Promise<string | null> {
  const claimEntry = world.kv.state("claims").get(key);
  if (claimEntry === undefined) return Promise.resolve("no claim");
  const claim = decodeClaim(claimEntry.value);
  const process = world.processes.get(claim.node);
  const named = `claim ${claim.node}/${claim.incarnation} at epoch ${claimEntry.revision}`;
  if (process === undefined) return Promise.resolve(`${named}: that node is down`);
  if (process.incarnation !== claim.incarnation)
    return Promise.resolve(`${named}: the node runs as ${process.incarnation ?? "nothing yet"}`);
  if (!process.mayAct()) return Promise.resolve(`${named}: its lease is not fresh`);
  return process
    .probe(key, probeMs)
    .then((answer) => (answer.ok ? null : `${named}: a probe was answered ${answer.code}`));
}
