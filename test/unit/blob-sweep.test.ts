import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AskResult } from "../../actors/runtime/index.ts";
import { MemoryBlobStore } from "../../fleet/index.ts";
import { holderInUse } from "../../ops/node/blob-sweep.ts";

/** The node's sweep of orphaned room documents (ops/node/blob-sweep.ts): who counts as still holding one. */

const answers: Record<string, AskResult> = {
  "room/LIVING": { ok: true, value: { room: "LIVING", phase: "playing" } },
  "room/ENDED": { ok: false, code: "NOT_FOUND", message: "no such key" },
  "room/MOVING": { ok: false, code: "UNAVAILABLE", message: "awaits its owner", retryAfterMs: 250 },
  "room/SLOW": { ok: false, code: "TIMEOUT", message: "no answer" },
};

function ask(asked: string[]) {
  return (key: string, message: unknown): Promise<AskResult> => {
    asked.push(`${key} ${JSON.stringify(message)}`);
    return Promise.resolve(answers[key] ?? { ok: false, code: "NOT_FOUND", message: "no such key" });
  };
}

describe("the blob sweep's holders", () => {
  it("only a room that answers NOT_FOUND is gone; a room being taken over or slow keeps its blob", async () => {
    const asked: string[] = [];
    const inUse = holderInUse(ask(asked));
    expect(await inUse("room/LIVING")).toBe(true);
    expect(await inUse("room/ENDED")).toBe(false);
    expect(await inUse("room/MOVING")).toBe(true);
    expect(await inUse("room/SLOW")).toBe(true);
    // A holder of another kind is never asked: kept.
    expect(await inUse("lobby/ABC123")).toBe(true);
    expect(asked).toEqual([
      'room/LIVING {"type":"status"}',
      'room/ENDED {"type":"status"}',
      'room/MOVING {"type":"status"}',
      'room/SLOW {"type":"status"}',
    ]);
  });

  it("with a store on a manual clock: young blobs stay, old orphans and blobs of ended rooms go", async () => {
    let now = 1_000_000;
    const store = new MemoryBlobStore(10_000, () => now);
    const bytes = new Uint8Array([1, 2, 3]);
    const digest = createHash("sha256").update(bytes).digest("hex");
    const make = async (): Promise<string> => {
      const id = await store.begin(bytes.byteLength, digest);
      await store.put(id, 0, bytes);
      await store.complete(id);
      return id;
    };
    const orphan = await make();
    const living = await make();
    const ended = await make();
    await store.hold(living, "room/LIVING");
    await store.hold(ended, "room/ENDED");
    const inUse = holderInUse(ask([]));
    now += 29 * 60_000;
    expect(await store.sweep({ olderThanMs: 30 * 60_000, inUse })).toEqual([]);
    // A hold dates the blob anew: held later, it is younger.
    now += 60_000;
    await store.hold(living, "room/LIVING");
    now += 1;
    expect([...(await store.sweep({ olderThanMs: 30 * 60_000, inUse }))].sort()).toEqual(
      [orphan, ended].sort(),
    );
    expect(store.count).toBe(1);
    expect(await store.stat(living)).not.toBeNull();
  });
});
