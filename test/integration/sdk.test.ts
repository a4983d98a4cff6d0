import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FoyerClient, type SocketLike } from "../../gateway/client/index.ts";
import { decodeClientFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, lobbyOf, refusal, startTestNode, tokenFor } from "../support/node.ts";

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

async function player(id: string, extra: { callTimeoutMs?: number } = {}): Promise<FoyerClient> {
  if (!node) throw new Error("no node");
  const client = await clientFor(node, id, extra);
  clients.push(client);
  return client;
}

/** An SDK client on a `ws` socket that records the type and id of every request it sends. */
async function recordingClient(id: string): Promise<{ client: FoyerClient; sent: string[] }> {
  const sent: string[] = [];
  class Recording extends WebSocket {
    override send(data: Uint8Array | string): void {
      const decoded = decodeClientFrame(data);
      if (decoded.ok && "id" in decoded.frame) sent.push(`${decoded.frame.type}#${decoded.frame.id}`);
      super.send(data);
    }
  }
  const client = new FoyerClient({
    urls: [node!.url],
    token: tokenFor(id),
    reconnectMinMs: 20,
    WebSocket: Recording as unknown as new (url: string) => SocketLike,
  });
  clients.push(client);
  await client.connect();
  return { client, sent };
}

const players = (c: FoyerClient): string[] => lobbyOf(c).members.map((m) => m.player);

describe("the SDK's retries and reconnects", () => {
  it("retries a call refused with a retryable error until it succeeds", async () => {
    // Two frames of burst, refilled at 5 per second: the third call in a row is refused RATE_LIMITED.
    node = await startTestNode({ ratePerSecond: "5", rateBurst: "2" });
    const a = await player("a");
    await a.create();
    await Promise.all([a.ready(true), a.profile("Ann")]);
    expect(node.refusals.get("RATE_LIMITED")).toBeGreaterThanOrEqual(1);
    await eventually(() => expect(lobbyOf(a).members[0]).toMatchObject({ ready: true, name: "Ann" }));
  });

  it("re-sends a call pending across a dropped connection, which is applied once", async () => {
    node = await startTestNode();
    const a = await player("a");
    const { code } = await a.create();
    const { client: b, sent } = await recordingClient("b");
    const resumed = b.next("connected");
    const joined = b.join(code);
    // The join left before the drop; its answer comes to a socket that is already closing, and is lost.
    b.dropConnection();
    expect((await resumed).resumed).toBe(true);
    expect(await joined).toEqual({ code });
    expect(sent.filter((s) => s === "join#1")).toHaveLength(2);
    await eventually(() => expect(players(a)).toEqual(["a", "b"]));
    expect(players(b)).toEqual(["a", "b"]);
  });

  it("after leave resolves the client has no lobby and has emitted left", async () => {
    node = await startTestNode();
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    const left = b.next("left");
    await b.leave();
    expect(b.lobby).toBeNull();
    expect(await left).toEqual({ code });
    await eventually(() => expect(players(a)).toEqual(["a"]));
  });

  it("a leave outside any lobby, or of a lobby that closed, is a success", async () => {
    node = await startTestNode();
    const a = await player("a");
    expect(await a.leave()).toBeNull();
    await a.create();
    await a.leave(); // the last member: the lobby closes
    expect(await a.leave()).toBeNull();
  });

  it("a player who left a room's lobby cannot finish that room", async () => {
    node = await startTestNode();
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    await a.start("duel");
    // One more lobby frame while b is seated, so b's session has noted the room as its last one.
    await a.ready(true);
    await eventually(() => expect(lobbyOf(b).members[0]?.ready).toBe(true));
    await b.leave();
    expect(await refusal(b.finish())).toBe("NOT_PLAYING");
    // The room plays on for a: a round trip through the lobby shows it still playing.
    await a.ready(false);
    await eventually(() => expect(lobbyOf(a).members[0]?.ready).toBe(false));
    expect(lobbyOf(a).playing).toBe(true);
    expect(lobbyOf(a).room?.seats.find((s) => s.player === "a")).toBeDefined();
  });
});
