import { expect } from "vitest";
import {
  connectNats,
  decodeClaim,
  decodeSnapshot,
  NatsKvStore,
  openSnapshotBucket,
  type KvBucket,
} from "../../fleet/index.ts";
import type { ActivityTransferView, FoyerClient } from "../../gateway/client/index.ts";
import { eventually } from "./node.ts";
import type { ProcessFleet } from "./process-fleet.ts";

/** What an activity cluster test records of one player (docs/activity.md, "In a fleet"). */
export interface ActivityPlayer {
  readonly id: string;
  readonly client: FoyerClient;
  /** Every `activity` event, as `EVENT player|time`, with the test's clock when it arrived. */
  readonly heard: Heard[];
  readonly transfers: { frame: ActivityTransferView; at: number }[];
  /** The node of every welcome, in order (the first is the node connected to). */
  readonly landings: string[];
}

export interface Heard {
  readonly line: string;
  readonly event: string;
  /** Seconds left, for the PHASE_ events. */
  readonly time?: number;
  /** Date.now() when it arrived: the nodes run on this machine, so on the same clock. */
  readonly at: number;
}

/** A connected SDK client of `id` on `first` (a URL of `fleet.urls`, whose node is `n<index + 1>`). */
export async function activityPlayer(
  fleet: ProcessFleet,
  id: string,
  first: string,
): Promise<ActivityPlayer> {
  const client = await fleet.player(id, first);
  const p: ActivityPlayer = {
    id,
    client,
    heard: [],
    transfers: [],
    landings: [`n${fleet.urls.indexOf(first) + 1}`],
  };
  client.on("activity", (frame) => {
    const at = Date.now();
    if ("time" in frame) {
      p.heard.push({ line: `${frame.event} ${frame.time}`, event: frame.event, time: frame.time, at });
    } else p.heard.push({ line: `${frame.event} ${frame.player}`, event: frame.event, at });
  });
  client.on("activityTransfer", (frame) => p.transfers.push({ frame, at: Date.now() }));
  client.on("connected", (info) => p.landings.push(info.node));
  return p;
}

/** Clock slack between the test's Date.now() and a node's: one machine, whole milliseconds. */
export const clockSlackMs = 2;

/**
 * Where the countdown ends as the lobby tells `p`, bracketed: `p` joins `activity` again (its lobby
 * answers a repeated join with the full picture), and the `PHASE_WAIT_READY` of that picture was computed
 * between the request and its answer, so the deadline it tells lies in [sent + time, answered + time].
 * No tolerance for load: a slow machine only widens the bracket.
 */
export async function bracketDeadline(
  p: ActivityPlayer,
  activity: string,
): Promise<{ low: number; high: number }> {
  const from = p.heard.length;
  const sent = Date.now();
  await p.client.joinActivity(activity);
  const answered = Date.now();
  let time = -1;
  await eventually(() => {
    const picture = p.heard.slice(from);
    expect(picture[0]?.line).toBe(`PLAYER_ADDED ${p.id}`);
    const phase = picture.find((h) => h.event === "PHASE_WAIT_READY");
    expect(phase).toBeDefined();
    time = phase!.time!;
  }, 15_000);
  return { low: sent + time * 1000 - clockSlackMs, high: answered + time * 1000 + clockSlackMs };
}

/** Expects `deadline` inside the bracket `p` hears now (see bracketDeadline). */
export async function expectHeardDeadline(
  p: ActivityPlayer,
  activity: string,
  deadline: number,
): Promise<void> {
  const seen = await bracketDeadline(p, activity);
  expect(deadline).toBeGreaterThanOrEqual(seen.low);
  expect(deadline).toBeLessThanOrEqual(seen.high);
}

/** An activity lobby as its snapshot in the `lobbies` bucket holds it: epoch, and deadline if counting. */
export interface StoredCountdown {
  readonly epoch: number;
  readonly deadline: number | null;
}

async function withStore<T>(fleet: ProcessFleet, read: (kv: NatsKvStore) => Promise<T>): Promise<T> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    return await read(new NatsKvStore(nc));
  } finally {
    await nc.close();
  }
}

/** The fleet's snapshot bucket(s), as its nodes see them. */
async function snapshotsOf(kv: NatsKvStore): Promise<KvBucket> {
  return openSnapshotBucket(kv, await kv.bucket("claims"), await kv.bucket("nodes"));
}

/** The stored snapshot of the activity lobby `key` (null when there is none). */
export function storedCountdown(fleet: ProcessFleet, key: string): Promise<StoredCountdown | null> {
  return withStore(fleet, async (kv) => {
    const entry = await (await snapshotsOf(kv)).get(key);
    if (entry === null) return null;
    const snapshot = decodeSnapshot(entry.value);
    const stage = (snapshot.state as { stage: { countdown?: { running: boolean; deadline?: number } } })
      .stage;
    const countdown = stage.countdown;
    return {
      epoch: snapshot.epoch,
      deadline: countdown?.running === true && countdown.deadline !== undefined ? countdown.deadline : null,
    };
  });
}

/** The node the claim of `key` names, as the store holds it (null when unclaimed). */
export function claimOwner(fleet: ProcessFleet, key: string): Promise<string | null> {
  return withStore(fleet, async (kv) => {
    const entry = await (await kv.bucket("claims")).get(key);
    return entry === null ? null : decodeClaim(entry.value).node;
  });
}

/** True once `key`'s snapshot is in the fleet's store (its actor is durable). */
export function snapshotStored(fleet: ProcessFleet, key: string): Promise<boolean> {
  return withStore(fleet, async (kv) => (await (await snapshotsOf(kv)).get(key)) !== null);
}
