import { createHash, randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, startTestNode } from "../support/node.ts";

/** Room documents end to end (docs/rooms.md "Large blobs"): upload, create, start, every seat receives it. */

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

describe("room documents", () => {
  it("a 5 MB document uploaded in frame-sized chunks reaches both seats intact at the start", async () => {
    node = await startTestNode({ ratePerSecond: "100000", rateBurst: "100000" });
    const host = await clientFor(node, "blob-host");
    const guest = await clientFor(node, "blob-guest");
    clients.push(host, guest);
    const doc = randomBytes(5 << 20);
    const received: Record<string, { bytes: Uint8Array; digest: string }> = {};
    for (const [name, c] of [
      ["host", host],
      ["guest", guest],
    ] as const) {
      c.on("blob", (b) => (received[name] = b));
    }
    const id = await host.uploadBlob(doc);
    const { room } = await host.createRoom({ seats: 2, mode: "duel", blob: id });
    expect(host.room?.blob).toEqual({
      id,
      size: doc.byteLength,
      digest: createHash("sha256").update(doc).digest("hex"),
    });
    await guest.joinRoom(room);
    await host.roomReady();
    await guest.roomReady();
    await eventually(() => {
      expect(received.host).toBeDefined();
      expect(received.guest).toBeDefined();
    }, 20_000);
    for (const r of Object.values(received)) expect(Buffer.from(r.bytes).equals(doc)).toBe(true);
  }, 30_000);

  it("refuses a document over maxBlobBytes, a chunk out of order and a wrong digest", async () => {
    node = await startTestNode({ maxBlobBytes: "1000" });
    const c = await clientFor(node, "blob-bad");
    clients.push(c);
    const digest = "0".repeat(64);
    await expect(c.call({ type: "beginBlob", size: 1001, digest })).rejects.toMatchObject({
      code: "TOO_LARGE",
    });
    const { blob } = (await c.call({ type: "beginBlob", size: 4, digest })) as { blob: string };
    await expect(
      c.call({ type: "blobChunk", blob, index: 1, data: new Uint8Array([1, 2]) }),
    ).rejects.toMatchObject({ code: "INVALID" });
    await c.call({ type: "blobChunk", blob, index: 0, data: new Uint8Array([1, 2, 3, 4]) });
    await expect(c.call({ type: "finishBlob", blob })).rejects.toMatchObject({ code: "INVALID" });
    // The wrong digest discarded the upload: a room cannot use it.
    await expect(c.createRoom({ seats: 1, mode: "duel", blob })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
