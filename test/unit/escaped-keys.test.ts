import { describe, expect, it } from "vitest";
import { assertKvKey } from "../../fleet/kv-key.ts";
import { escapeKvKey, unescapeKvKey } from "../../fleet/escaped-keys.ts";
import { KvActorStore, MemoryKvServer, realScheduler } from "../../fleet/index.ts";
import type { Snapshot } from "../../actors/runtime/index.ts";

const awkward = [
  "player/ann@example.com",
  "player/auth0|123",
  "player/dev-alice smith",
  "player/a..b.",
  "player/日本語",
  "player/=41",
  "lobby/ABC123",
];

describe("escaped KV keys", () => {
  it("turns any actor key into a valid KV key and back", () => {
    for (const key of awkward) {
      const escaped = escapeKvKey(key);
      expect(() => {
        assertKvKey(escaped);
      }).not.toThrow();
      expect(unescapeKvKey(escaped)).toBe(key);
    }
  });

  it("leaves keys that were already plain as they were", () => {
    expect(escapeKvKey("lobby/ABC123")).toBe("lobby/ABC123");
    expect(escapeKvKey("player/p-1_x")).toBe("player/p-1_x");
  });

  it("lets the actor store claim and read keys with any player id", async () => {
    const kv = new MemoryKvServer().connect();
    const store = new KvActorStore({
      claims: await kv.bucket("claims"),
      snapshots: await kv.bucket("lobbies"),
      identity: { node: "n1", incarnation: "i1" },
      scheduler: realScheduler(),
    });
    const snapshot = (key: string, epoch: number): Snapshot => ({
      format: 1,
      kind: "player",
      schemaVersion: 1,
      key,
      epoch,
      seq: 0,
      writeId: "w1",
      state: { lobby: null },
      timers: [],
      results: [],
    });
    for (const key of awkward) {
      const { epoch } = await store.create(key, (e) => snapshot(key, e));
      expect((await store.read(key))?.snapshot.key).toBe(key);
      expect((await store.read(key))?.epoch).toBe(epoch);
    }
    await kv.close();
  });
});
