import {
  PersistError,
  type ActorStore,
  type ClaimOwner,
  type Snapshot,
  type SnapshotResult,
  type StoredActor,
} from "./ports.ts";

/** A process as it names itself in a claim. */
export interface MemoryStoreIdentity {
  readonly node: string;
  readonly incarnation: string;
}

interface Row {
  snapshot: Snapshot;
  revision: number;
  epoch: number;
  owner: MemoryStoreIdentity;
}

/**
 * The smallest ActorStore: claims and snapshots in a Map, with compare-and-set revisions. Used by the
 * actor harness; embedded nodes use fleet's KvActorStore over the in-memory KV instead, so the same
 * code path runs with and without NATS.
 */
export class MemoryActorStore implements ActorStore {
  private rows = new Map<string, Row>();
  /** Answers stored apart, by actor key and record id. */
  private apart = new Map<string, Map<string, readonly SnapshotResult[]>>();
  private revision = 0;
  /** Number of successful writes, for tests that count persistence. */
  writes = 0;
  /** When set, every write fails this way (to test unavailable stores and fencing). */
  failWith: "fenced" | "unavailable" | undefined;

  /** `identity` names this store's claims (default `local`); only keys it claimed are `mine`. */
  constructor(private readonly identity: MemoryStoreIdentity = { node: "local", incarnation: "local" }) {}

  create(key: string, snapshot: (epoch: number) => Snapshot): Promise<{ epoch: number; revision: number }> {
    const row = this.rows.get(key);
    if (row) return Promise.reject(new PersistError("exists", `${key} exists`, { owner: this.ownerOf(row) }));
    const epoch = ++this.revision;
    const revision = ++this.revision;
    this.rows.set(key, { snapshot: structuredClone(snapshot(epoch)), revision, epoch, owner: this.identity });
    this.writes++;
    return Promise.resolve({ epoch, revision });
  }

  read(key: string): Promise<StoredActor | null> {
    const row = this.rows.get(key);
    if (!row) return Promise.resolve(null);
    return Promise.resolve({
      snapshot: structuredClone(row.snapshot),
      revision: row.revision,
      epoch: row.epoch,
      owner: this.ownerOf(row),
    });
  }

  /** Moves a key's claim to another process (a takeover, in tests): a new epoch, the snapshot kept. */
  reclaim(key: string, owner: MemoryStoreIdentity): void {
    const row = this.rows.get(key);
    if (!row) throw new Error(`${key} has no snapshot`);
    row.owner = owner;
    row.epoch = ++this.revision;
  }

  private ownerOf(row: Row): ClaimOwner {
    const { node, incarnation } = row.owner;
    return {
      node,
      incarnation,
      mine: node === this.identity.node && incarnation === this.identity.incarnation,
    };
  }

  write(key: string, snapshot: Snapshot, revision: number): Promise<number> {
    if (this.failWith) return Promise.reject(new PersistError(this.failWith, `write of ${key} refused`));
    const row = this.rows.get(key);
    if (row?.revision !== revision) return Promise.reject(new PersistError("fenced", `${key} moved`));
    row.snapshot = structuredClone(snapshot);
    row.revision = ++this.revision;
    this.writes++;
    return Promise.resolve(row.revision);
  }

  remove(key: string, _revision: number): Promise<void> {
    this.rows.delete(key);
    return Promise.resolve();
  }

  writeApart(key: string, id: string, results: readonly SnapshotResult[]): Promise<void> {
    if (this.failWith) return Promise.reject(new PersistError(this.failWith, `write of ${key} refused`));
    let records = this.apart.get(key);
    if (records === undefined) {
      records = new Map();
      this.apart.set(key, records);
    }
    records.set(id, structuredClone(results));
    return Promise.resolve();
  }

  readApart(key: string, id: string): Promise<readonly SnapshotResult[] | null> {
    const results = this.apart.get(key)?.get(id);
    return Promise.resolve(results === undefined ? null : structuredClone(results));
  }

  removeApart(key: string, id: string): Promise<void> {
    const records = this.apart.get(key);
    records?.delete(id);
    if (records?.size === 0) this.apart.delete(key);
    return Promise.resolve();
  }

  /** The ids of the records of answers stored apart for a key, for assertions. */
  apartIds(key: string): string[] {
    return [...(this.apart.get(key)?.keys() ?? [])];
  }

  /** The stored snapshot of a key, for assertions. */
  peek(key: string): Snapshot | undefined {
    return this.rows.get(key)?.snapshot;
  }

  /** Keys with a snapshot. */
  keys(): string[] {
    return [...this.rows.keys()];
  }
}
