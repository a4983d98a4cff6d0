import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { fakeClient, lobbyFrame } from "../support/fake-socket.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const newNode = "ws://node-2/ws";

/** A client welcomed on node-1, then told its lobby moved to node-2 (a drain). */
async function toldMoved() {
  const { client, made, last } = fakeClient({ urls: ["ws://node-1/ws", newNode] });
  const done = client.connect();
  await vi.advanceTimersByTimeAsync(0);
  last().accept();
  last().welcome();
  await done;
  const old = last();
  old.deliver({ type: "moved", key: "lobby/ABCD", url: newNode });
  await vi.advanceTimersByTimeAsync(0);
  return { client, made, old };
}

describe("FoyerClient told its lobby moved (make before break)", () => {
  it("opens the new socket beside the old one, sends calls over the old one meanwhile, then swaps", async () => {
    const { client, made, old } = await toldMoved();
    expect(made.map((s) => s.url)).toEqual(["ws://node-1/ws", newNode]);
    expect(old.closedWith).toBeUndefined();
    const ready = client.ready(true);
    const next = made[1];
    if (next === undefined) throw new Error("no second socket");
    // The old node forwards it to the lobby's new owner.
    expect(old.requests()).toEqual(["ready#1"]);
    next.accept();
    expect(next.sent[0]).toMatchObject({ type: "hello", resume: "resume-token" });
    expect(next.requests()).toEqual([]);
    const connected = client.next("connected");
    next.welcome("p1", true);
    expect(await connected).toMatchObject({ resumed: true });
    expect(old.closedWith).toEqual({ code: 4998, reason: "moved" });
    // The call the old socket left unanswered is re-sent, with its id, over the new one.
    expect(next.requests()).toEqual(["ready#1"]);
    next.deliver({ type: "result", id: 1, value: { ready: true } });
    await expect(ready).resolves.toEqual({ ready: true });
    expect(client.url).toBe(newNode);
    client.close();
  });

  it("says the lobby is moving when told, before the new node's connected", async () => {
    const { client, made, last } = fakeClient({ urls: ["ws://node-1/ws", newNode] });
    const heard: string[] = [];
    client.on("moving", ({ key, url }) => heard.push(`moving ${url}`, key));
    client.on("connected", ({ node }) => heard.push(`connected ${node}`));
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    last().accept();
    last().welcome();
    await done;
    last().deliver({ type: "moved", key: "lobby/ABCD", url: newNode });
    await vi.advanceTimersByTimeAsync(0);
    // Told again on its way (another key of the player's, say): one move, said once.
    made[0]?.deliver({ type: "moved", key: "lobby/ABCD", url: newNode });
    await vi.advanceTimersByTimeAsync(0);
    expect(heard).toEqual(["connected node-1", `moving ${newNode}`, "lobby/ABCD"]);
    made[1]?.accept();
    made[1]?.welcome("p1", true);
    expect(heard).toHaveLength(4);
    expect(heard[3]).toMatch(/^connected /);
    client.close();
  });

  it("settles a call the old socket answers before the swap, and does not send it again", async () => {
    const { client, made, old } = await toldMoved();
    const ready = client.ready(true);
    old.deliver({ type: "result", id: 1, value: { ready: true } });
    await expect(ready).resolves.toEqual({ ready: true });
    made[1]?.accept();
    made[1]?.welcome("p1", true);
    expect(made[1]?.requests()).toEqual([]);
    client.close();
  });

  it("hears nothing but the welcome from the new socket before the swap", async () => {
    const { client, made, old } = await toldMoved();
    const seen: number[] = [];
    client.on("lobby", (l) => seen.push(l.seq));
    const frame = (seq: number) => lobbyFrame(2, seq, ["p1"]);
    made[1]?.accept();
    made[1]?.deliver(frame(1));
    old.deliver(frame(2));
    expect(seen).toEqual([2]);
    client.close();
  });

  it("moves as a redirect does when the new node does not welcome it", async () => {
    const { client, made, old } = await toldMoved();
    made[1]?.drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(old.closedWith).toEqual({ code: 4998, reason: "following redirect" });
    expect(made.map((s) => s.url)).toEqual(["ws://node-1/ws", newNode, newNode]);
    made[2]?.accept();
    made[2]?.welcome("p1", true);
    await client.connect();
    client.close();
  });

  it("carries on with the new socket when the old one is lost before the swap", async () => {
    const { client, made, old } = await toldMoved();
    const events: string[] = [];
    client.on("disconnected", () => events.push("disconnected"));
    client.on("connected", () => events.push("connected"));
    old.drop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(made).toHaveLength(2); // no other attempt: the new socket is it
    made[1]?.accept();
    made[1]?.welcome("p1", true);
    expect(events).toEqual(["disconnected", "connected"]);
    expect(client.url).toBe(newNode);
    client.close();
  });

  it("still hears what the old socket delivers after the swap, once", async () => {
    const { client, made, old } = await toldMoved();
    const heard: string[] = [];
    client.on("roomEvent", (e) => heard.push(`${e.type}:${String((e as { text?: unknown }).text)}`));
    made[1]?.accept();
    made[1]?.welcome("p1", true);
    // A chat relayed to the old node just before the new one took over, then the same frame again.
    const chat = { type: "chat", key: "room/R1", epoch: 2, seq: 7, player: "p2", text: "gg" };
    old.deliver(chat);
    expect(heard).toEqual(["chat:gg"]);
    made[1]?.deliver(chat);
    old.deliver({ type: "moved", key: "lobby/ABCD", url: "ws://node-3/ws" });
    await vi.advanceTimersByTimeAsync(0);
    expect(heard).toEqual(["chat:gg"]);
    expect(made).toHaveLength(2); // a word about connecting from the old socket is not followed
    client.close();
  });

  it("goes where the move said when the old socket is lost while the new one's token is fetched", async () => {
    const token = vi.fn<() => Promise<string>>().mockResolvedValue("tok");
    const { client, made } = fakeClient({ urls: ["ws://node-1/ws", "ws://node-3/ws", newNode], token });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    made[0]?.accept();
    made[0]?.welcome();
    await done;
    made[0]?.deliver({ type: "moved", key: "lobby/ABCD", url: newNode });
    made[0]?.drop(); // before the token promise settles
    await vi.advanceTimersByTimeAsync(50);
    expect(made.slice(1).map((s) => s.url)).toEqual([newNode]);
    client.close();
  });

  it("carries on with the new socket when the old one is replaced by it (one address, the same node)", async () => {
    const { client, made, old } = await toldMoved();
    const closed: number[] = [];
    client.on("closed", (c) => closed.push(c.code));
    old.drop(CloseCodes.REPLACED.code, "REPLACED");
    made[1]?.accept();
    made[1]?.welcome("p1", true);
    await client.connect();
    expect(closed).toEqual([]);
    client.close();
  });

  it("resumes without naming its lobby when the new node, taking over from a lost old socket, is too old for it", async () => {
    const { client, made, last } = fakeClient({ urls: ["ws://node-1/ws", newNode] });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    last().accept();
    last().welcome("p1", false, { lobbyHint: true });
    await done;
    last().deliver(lobbyFrame(1, 1, ["p1"]));
    made[0]?.deliver({ type: "moved", key: "lobby/ABCD", url: newNode });
    await vi.advanceTimersByTimeAsync(0);
    made[1]?.accept();
    expect(made[1]?.sent[0]).toMatchObject({ type: "hello", lobby: "ABCD" });
    made[0]?.drop();
    made[1]?.drop(CloseCodes.PROTOCOL.code, "PROTOCOL");
    await vi.advanceTimersByTimeAsync(50);
    const next = made[2];
    next?.accept();
    expect(next?.sent[0]).toMatchObject({ type: "hello", resume: "resume-token" });
    expect(next?.sent[0]).not.toHaveProperty("lobby");
    client.close();
  });

  it("closes a new socket still on its way when the client is closed", async () => {
    const { client, made } = await toldMoved();
    client.close();
    expect(made[1]?.closedWith).toEqual({ code: 1000, reason: "not needed" });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(made).toHaveLength(2);
  });

  it("follows a redirect at once, dropping a move on its way", async () => {
    const { client, made, old } = await toldMoved();
    old.deliver({ type: "redirect", url: "ws://node-3/ws", reason: "lobby" });
    await vi.advanceTimersByTimeAsync(0);
    expect(made[1]?.closedWith).toEqual({ code: 1000, reason: "not needed" });
    expect(old.closedWith).toEqual({ code: 4998, reason: "following redirect" });
    expect(made.at(-1)?.url).toBe("ws://node-3/ws");
    client.close();
  });
});
