import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BlobStore } from "../../actors/runtime/index.ts";
import { MemoryBlobStore, NatsBlobStore, connectNats } from "../../fleet/index.ts";
import { useNats } from "./nats-harness.ts";

/** One contract for both BlobStores: the embedded one and the fleet's JetStream object store. */

const maxBytes = 1_000_000;
const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { failure?: string }).failure ?? String(error);
  }
  return "no failure";
}

async function readAll(store: BlobStore, id: string, chunk: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of store.read(id, chunk)) {
    expect(part.byteLength).toBeLessThanOrEqual(chunk);
    parts.push(part);
  }
  return new Uint8Array(Buffer.concat(parts));
}

async function upload(store: BlobStore, bytes: Uint8Array, chunk: number): Promise<string> {
  const id = await store.begin(bytes.byteLength, sha256(bytes));
  for (let i = 0; i * chunk < bytes.byteLength; i++) {
    await store.put(id, i, bytes.subarray(i * chunk, (i + 1) * chunk));
  }
  await store.complete(id);
  return id;
}

function blobStoreContract(name: string, open: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    it("stores a blob sent in chunks and reads it back whole, in chunks of any size", async () => {
      const store = await open();
      const bytes = new Uint8Array(randomBytes(300_000));
      const id = await upload(store, bytes, 64_000);
      expect(await store.stat(id)).toMatchObject({ size: bytes.byteLength, digest: sha256(bytes) });
      expect(Buffer.compare(await readAll(store, id, 50_000), bytes)).toBe(0);
      await store.delete(id);
      expect(await store.stat(id)).toBeNull();
      await store.close();
    });

    it("refuses what breaks the rules and changes nothing", async () => {
      const store = await open();
      const bytes = new Uint8Array(randomBytes(10_000));
      expect(await failure(store.begin(maxBytes + 1, sha256(bytes)))).toBe("TOO_LARGE");
      const id = await store.begin(bytes.byteLength, sha256(bytes));
      expect(await failure(store.put(id, 1, bytes.subarray(0, 5_000)))).toBe("ORDER");
      await store.put(id, 0, bytes.subarray(0, 5_000));
      expect(await failure(store.put(id, 1, new Uint8Array(6_000)))).toBe("TOO_LARGE");
      expect(await failure(store.put("no-such-upload", 0, bytes))).toBe("NOT_FOUND");
      // Still whole after the refusals: the rest completes it.
      await store.put(id, 1, bytes.subarray(5_000));
      await store.complete(id);
      expect(Buffer.compare(await readAll(store, id, 4_096), bytes)).toBe(0);
      await store.close();
    });

    it("discards an upload whose bytes do not match its digest", async () => {
      const store = await open();
      const bytes = new Uint8Array(randomBytes(2_000));
      const id = await store.begin(bytes.byteLength, sha256(new Uint8Array(2_000)));
      await store.put(id, 0, bytes);
      expect(await failure(store.complete(id))).toBe("DIGEST");
      expect(await store.stat(id)).toBeNull();
      expect(await failure(store.put(id, 1, bytes))).toBe("NOT_FOUND");
      await store.close();
    });

    it("an unfinished upload is not a blob, and deleting it discards it", async () => {
      const store = await open();
      const bytes = new Uint8Array(randomBytes(1_000));
      const id = await store.begin(bytes.byteLength, sha256(bytes));
      await store.put(id, 0, bytes.subarray(0, 500));
      expect(await store.stat(id)).toBeNull();
      await store.delete(id);
      expect(await failure(store.put(id, 1, bytes.subarray(500)))).toBe("NOT_FOUND");
      await store.delete("never-was"); // a no-op
      await store.close();
    });

    it("sweeps orphans — never held, held by an actor that is gone, unfinished — and keeps the rest", async () => {
      const store = await open();
      const bytes = new Uint8Array(randomBytes(3_000));
      const orphan = await upload(store, bytes, 1_000);
      const held = await upload(store, bytes, 1_000);
      await store.hold(held, "room/LIVING");
      const gone = await upload(store, bytes, 1_000);
      await store.hold(gone, "room/ENDED");
      const unfinished = await store.begin(bytes.byteLength, sha256(bytes));
      await store.put(unfinished, 0, bytes.subarray(0, 1_000));
      await store.hold("never-was", "room/LIVING"); // a no-op
      const asked: string[] = [];
      const inUse = (holder: string): Promise<boolean> => {
        asked.push(holder);
        return Promise.resolve(holder === "room/LIVING");
      };
      // Nothing is old enough yet: nothing goes, and no holder is asked.
      expect(await store.sweep({ olderThanMs: 600_000, inUse })).toEqual([]);
      expect(asked).toEqual([]);
      // Clocks count whole milliseconds: let one pass so everything above is older than "now".
      await new Promise((resolve) => setTimeout(resolve, 5));
      const swept = await store.sweep({ olderThanMs: 0, inUse });
      expect([...swept].sort()).toEqual([orphan, gone, unfinished].sort());
      expect([...new Set(asked)].sort()).toEqual(["room/ENDED", "room/LIVING"]);
      expect(await store.stat(orphan)).toBeNull();
      expect(await store.stat(gone)).toBeNull();
      expect(await failure(store.put(unfinished, 1, bytes.subarray(1_000, 2_000)))).toBe("NOT_FOUND");
      expect(Buffer.compare(await readAll(store, held, 1_000), bytes)).toBe(0);
      // A holder in doubt keeps its blob; a second sweep finds nothing more.
      expect(await store.sweep({ olderThanMs: 0, inUse: () => Promise.resolve(true) })).toEqual([]);
      await store.close();
    });
  });
}

blobStoreContract("memory", () => Promise.resolve(new MemoryBlobStore(maxBytes)));

describe("NATS, one server", () => {
  const harness = useNats(1);
  let bucket = 0;
  blobStoreContract("JetStream object store", async () => {
    const nc = await connectNats({ servers: harness.nats().urls });
    const store = await NatsBlobStore.open(nc, { maxBytes, bucket: `blobs_${Date.now()}_${bucket++}` });
    return {
      maxBytes: store.maxBytes,
      begin: (size, digest) => store.begin(size, digest),
      put: (id, index, bytes) => store.put(id, index, bytes),
      complete: (id) => store.complete(id),
      stat: (id) => store.stat(id),
      read: (id, chunk) => store.read(id, chunk),
      delete: (id) => store.delete(id),
      hold: (id, holder) => store.hold(id, holder),
      sweep: (opts) => store.sweep(opts),
      release: (id) => store.release(id),
      close: async () => {
        await store.close();
        await nc.close();
      },
    };
  });
});
