import { describe, expect, it } from "vitest";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { eventually, lobbyOf, rawSocket, useTestNode, waitFrame } from "../support/node.ts";

const { setup, player } = useTestNode();

describe("sessions and retries across connections", () => {
  it("a newer login of the same player takes over without costing the seat", async () => {
    await setup({ lobbyGraceSeconds: "1" });
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    // Every state a sees from now on: a takeover that counted as a drop would show b away in one of them.
    const seen: boolean[] = [];
    a.on("lobby", (lobby) => seen.push(lobby.members.find((m) => m.player === "b")?.connected ?? false));
    const closed = b.next("closed");
    const b2 = await player("b");
    expect((await closed).code).toBe(4031);
    await eventually(() => expect(lobbyOf(b2).members[1]).toMatchObject({ player: "b", connected: true }));
    // A round trip through the lobby after the takeover: a change of a's own, which a must see, proves
    // the lobby handled everything the takeover sent it before.
    await a.ready(true);
    await eventually(() => expect(lobbyOf(a).members[0]?.ready).toBe(true));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((connected) => connected)).toBe(true);
    expect(lobbyOf(a).members.map((m) => [m.player, m.connected])).toEqual([
      ["a", true],
      ["b", true],
    ]);
  });

  it("a leave re-sent after its answer was lost is answered with its first result", async () => {
    const n = await setup();
    const host = await player("h");
    const { code } = await host.create();
    const first = await rawSocket(n, { player: "a" });
    const welcome = await waitFrame<{ resume: string }>(first.frames, (f) => f.type === "welcome");
    first.ws.send(encodeFrame({ type: "join", id: 1, code }, "msgpack"));
    await waitFrame(first.frames, (f) => f.type === "result" && f.id === 1);
    first.ws.send(encodeFrame({ type: "leave", id: 2 }, "msgpack"));
    await waitFrame(first.frames, (f) => f.type === "result" && f.id === 2);
    first.ws.terminate();
    const again = await rawSocket(n, { player: "a", resume: welcome.resume });
    again.ws.send(encodeFrame({ type: "leave", id: 2 }, "msgpack"));
    expect(await waitFrame(again.frames, (f) => f.id === 2)).toMatchObject({ type: "result" });
    again.ws.close();
  });

  it("a request re-sent after a reconnect is applied once", async () => {
    const n = await setup();
    const first = await rawSocket(n, { player: "a" });
    const welcome = first.frames.find((f) => (f as { type: string }).type === "welcome") as {
      resume: string;
    };
    first.ws.send(encodeFrame({ type: "create", id: 1 }, "msgpack"));
    const answer = await waitFrame<{ value: { code: string } }>(first.frames, (f) => f.type === "result");
    first.ws.terminate();
    // The answer was "lost": the client reconnects with its resume token and re-sends request 1.
    const again = await rawSocket(n, { player: "a", resume: welcome.resume });
    again.ws.send(encodeFrame({ type: "create", id: 1 }, "msgpack"));
    const replay = await waitFrame(again.frames, (f) => f.type === "result");
    expect(replay).toEqual(answer);
    again.ws.send(encodeFrame({ type: "create", id: 2 }, "msgpack"));
    const fresh = await waitFrame<{ value: { code: string } }>(
      again.frames,
      (f) => f.type === "result" && f.id === 2,
    );
    expect(fresh.value.code).not.toBe(answer.value.code);
    again.ws.close();
  });
});
