import {
  NatsKvStore,
  connectNats,
  decodeSnapshot,
  isApartKvKey,
  orphanKind,
  recordedSnapshotShards,
  shardBucketNames,
  snapshotBucketBase,
  type KvEntry,
  type KvWatch,
} from "../../fleet/index.ts";
import type { Snapshot } from "../../actors/runtime/index.ts";
import type { SnapshotWrite, StoredLobbyData, WrittenLobby } from "./chaos-journal.ts";
import { writtenActivityLobby, writtenMatchedLobby } from "./kind-states.ts";

/** The keys watched, each with how its state is read: private, activity and matched lobbies. */
const watched: readonly [string, (state: unknown) => WrittenLobby | null][] = [
  ["lobby/", writtenLobby],
  ["activityLobby/", writtenActivityLobby],
  ["mmlobby/", writtenMatchedLobby],
];

/** A running watch of the snapshot buckets. */
export interface SnapshotHistory {
  stop(): Promise<void>;
}

/**
 * Watches every snapshot write of a private, activity or matched lobby to the fleet's snapshot buckets (`lobbies`, or each of `lobbies-00` …;
 * history first, then live; the store's watch resumes after a reconnect from the last revision it saw),
 * noting each one's epoch and sequence, so the audit can see whether an older owner wrote after a newer
 * one. A key lives in one bucket, so its writes' revisions are in its own order. The fleet's nodes must
 * have started (the first one records the layout).
 */
export async function watchSnapshots(
  natsUrls: readonly string[],
  replicas: number,
  onWrite: (write: SnapshotWrite) => void,
): Promise<SnapshotHistory> {
  const nc = await connectNats({ servers: natsUrls, name: "foyer-chaos-audit" });
  const store = new NatsKvStore(nc, { replicas });
  try {
    const shards = await recordedSnapshotShards(await store.bucket("claims"));
    if (shards === undefined) throw new Error("the chaos fleet recorded no snapshot layout: no node started");
    const onEntry = (entry: KvEntry): void => {
      if (isApartKvKey(entry.key)) return; // a lobby's answers stored apart, not one of its snapshots
      onWrite(snapshotWriteOf(entry, Date.now()));
    };
    const watches: KvWatch[] = [];
    for (const name of shardBucketNames(snapshotBucketBase, shards)) {
      const bucket = await store.bucket(name);
      for (const [prefix] of watched) watches.push(bucket.watch({ prefix, fromRevision: 1 }, onEntry));
    }
    return {
      async stop() {
        for (const watch of watches) watch.stop();
        await store.close();
        await nc.close();
      },
    };
  } catch (error) {
    await store.close();
    await nc.close();
    throw error;
  }
}

/**
 * One entry of a snapshot bucket as the audits read it, seen at `at`. A delete, and an orphan's
 * tombstone (written by a takeover that found a claim with no snapshot: the key holds no actor), start
 * the key afresh: no epoch, no state.
 */
export function snapshotWriteOf(entry: KvEntry, at: number): SnapshotWrite {
  const none = { key: entry.key, revision: entry.revision, epoch: null, seq: null, at, lobby: null };
  if (entry.operation !== "PUT") return none;
  let snapshot: Snapshot;
  try {
    snapshot = decodeSnapshot(entry.value);
  } catch {
    return none; // not a snapshot
  }
  if (snapshot.kind === orphanKind) return none;
  const read = watched.find(([prefix]) => entry.key.startsWith(prefix))?.[1] ?? writtenLobby;
  return {
    key: entry.key,
    revision: entry.revision,
    epoch: snapshot.epoch,
    seq: snapshot.seq,
    at,
    lobby: read(snapshot.state),
    ...((snapshot.spawning?.length ?? 0) > 0 ? { spawning: true } : {}),
  };
}

/** A member as a lobby snapshot holds it, in the fields its frames show. */
interface StoredMember {
  readonly player: string;
  readonly ready?: unknown;
  readonly connected: boolean;
  readonly inRoom?: unknown;
  readonly data?: unknown;
}

/**
 * The members of a written lobby state and a digest of what its frames show, or null for a state that
 * is not a lobby's (read loosely: the audit must not fail on a field it does not need).
 */
export function writtenLobby(state: unknown): WrittenLobby | null {
  if (typeof state !== "object" || state === null) return null;
  const { members, host, room } = state as { members?: unknown; host?: unknown; room?: unknown };
  if (!Array.isArray(members) || !members.every(isStoredMember)) return null;
  const roomCode = typeof room === "object" && room !== null ? (room as { code?: unknown }).code : null;
  const shown = members.map((m) => [m.player, m.ready, m.connected, m.inRoom]);
  const stored = storedData(state, members);
  return {
    members: members.map((m) => ({ player: m.player, connected: m.connected })),
    digest: JSON.stringify([shown, host ?? null, roomCode ?? null]),
    ...(stored === undefined ? {} : { stored }),
  };
}

/** The lobby's data, version, seats and bans, when the state holds them (a lobby state of schema 2 on). */
function storedData(state: object, members: readonly StoredMember[]): StoredLobbyData | undefined {
  const { version, data, door, banned } = state as {
    version?: unknown;
    data?: unknown;
    door?: unknown;
    banned?: unknown;
  };
  const { maxMembers, locked } =
    typeof door === "object" && door !== null ? (door as { maxMembers?: unknown; locked?: unknown }) : {};
  if (typeof version !== "number" || typeof maxMembers !== "number" || !Array.isArray(banned))
    return undefined;
  const values: Record<string, unknown> = {};
  if (typeof data === "object" && data !== null) {
    for (const [key, entry] of Object.entries(data as Record<string, unknown>)) {
      values[key] =
        typeof entry === "object" && entry !== null ? (entry as { value?: unknown }).value : entry;
    }
  }
  const memberData: Record<string, Record<string, unknown>> = {};
  for (const m of members) {
    memberData[m.player] = typeof m.data === "object" && m.data !== null ? { ...m.data } : {};
  }
  return {
    version,
    data: values,
    memberData,
    maxMembers,
    locked: locked === true,
    banned: banned.filter((b): b is string => typeof b === "string"),
  };
}

function isStoredMember(value: unknown): value is StoredMember {
  if (typeof value !== "object" || value === null) return false;
  const m = value as { player?: unknown; connected?: unknown };
  return typeof m.player === "string" && typeof m.connected === "boolean";
}
