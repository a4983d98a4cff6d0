import { afterEach, describe, expect, it } from "vitest";
import { type FoyerClient, type RoomEventFrame } from "../../gateway/client/index.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, rawSocket, refusal, startTestNode, waitFrame } from "../support/node.ts";

/** A player's lobby, activity lobby and room belong to the player: a fresh login carries on in them. */

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

async function connect(id: string): Promise<FoyerClient> {
  if (!node) throw new Error("no node");
  const client = await clientFor(node, id);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

describe("memberships across a fresh login", () => {
  it("a fresh login leaves the activity lobby its older login was in", async () => {
    node = await startTestNode();
    const [a, b] = [await connect("a"), await connect("b")];
    const seenByB: string[] = [];
    b.on("activity", (f) => seenByB.push(`${f.event} ${"player" in f ? f.player : ""}`));
    await a.joinActivity("race");
    await b.joinActivity("race");
    await eventually(() => expect(seenByB).toContain("PLAYER_ADDED a"));
    const again = await connect("a");
    await again.leaveActivity();
    await eventually(() => expect(seenByB).toContain("PLAYER_REMOVED a"));
  });

  it("a fresh login plays on in the room its older login sat in", async () => {
    node = await startTestNode();
    const host = await connect("h");
    const guest = await connect("g");
    const { room } = (await host.createRoom({ seats: 2, mode: "duel", turnMs: 50 })) as { room: string };
    await guest.joinRoom(room);
    await host.roomReady(true);
    await guest.roomReady(true);
    await eventually(() => expect(host.room?.phase).toBe("playing"));
    guest.close();
    await eventually(() => expect(host.room?.paused).toBe("missing"));
    const back = await connect("g");
    const events: RoomEventFrame[] = [];
    back.on("roomEvent", (e) => events.push(e));
    await back.joinRoom(room);
    await eventually(() => expect(host.room?.seats.every((s) => s.connected)).toBe(true));
    await host.resumeRoom();
    await back.command("move");
    await eventually(() =>
      expect(events.some((e) => e.type === "turn" && e.commands.some((c) => c.data === "move"))).toBe(true),
    );
  });

  it("a player seated in a room it created is refused a lobby until it leaves the room", async () => {
    node = await startTestNode();
    const a = await connect("a");
    await a.createRoom({ seats: 2, mode: "duel" });
    expect(await refusal(a.create())).toBe("ALREADY_PLAYING");
    expect(await refusal(a.joinActivity("race"))).toBe("ALREADY_PLAYING");
    await a.leaveRoom();
    await expect(a.create()).resolves.toMatchObject({ code: expect.any(String) as string });
  });

  it("a createRoom re-sent after the node filled up is answered with its first result", async () => {
    node = await startTestNode({ maxRooms: "1" });
    const raw = await rawSocket(node, { player: "r" });
    const welcome = await waitFrame<{ resume: string }>(raw.frames, (f) => f.type === "welcome");
    raw.ws.send(encodeFrame({ type: "createRoom", id: 7, seats: 2, mode: "duel" }, "msgpack"));
    const first = await waitFrame(raw.frames, (f) => f.type === "result" && f.id === 7);
    raw.ws.terminate();
    const again = await rawSocket(node, { player: "r", resume: welcome.resume });
    again.ws.send(encodeFrame({ type: "createRoom", id: 7, seats: 2, mode: "duel" }, "msgpack"));
    expect(await waitFrame(again.frames, (f) => f.id === 7)).toEqual(first);
    again.ws.close();
  });
});
