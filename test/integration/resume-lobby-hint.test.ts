import { describe, expect, it } from "vitest";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { eventually, lobbyOf, rawSocket, useTestNode, waitFrame } from "../support/node.ts";

/** A resuming client may name the lobby it was in (`hello.lobby`); the lobby decides whether it is. */
describe("resume naming a lobby", () => {
  const { setup, player } = useTestNode();

  async function memberOf(n: Awaited<ReturnType<typeof setup>>, code: string) {
    const first = await rawSocket(n, { player: "a" });
    const welcome = await waitFrame<{ resume: string; lobbyHint?: boolean }>(
      first.frames,
      (f) => f.type === "welcome",
    );
    first.ws.send(encodeFrame({ type: "join", id: 1, code }, "msgpack"));
    await waitFrame(first.frames, (f) => f.type === "result" && f.id === 1);
    first.ws.terminate();
    return welcome;
  }

  it("serves a resumed member the lobby it names, and the welcome says the node reads it", async () => {
    const n = await setup();
    const host = await player("h");
    const { code } = await host.create();
    const welcome = await memberOf(n, code);
    expect(welcome.lobbyHint).toBe(true);
    const again = await rawSocket(n, { player: "a", resume: welcome.resume, lobby: code.toLowerCase() });
    const state = await waitFrame<{ key: string; members: { player: string; connected: boolean }[] }>(
      again.frames,
      (f) => f.type === "lobby",
    );
    expect(state.key).toBe(`lobby/${code}`);
    expect(state.members.find((m) => m.player === "a")?.connected).toBe(true);
    again.ws.close();
  });

  it("never seats a player in a lobby it names but is not in: it is sent to its own", async () => {
    const n = await setup();
    const host = await player("h");
    const { code } = await host.create();
    const other = await player("g");
    const { code: otherCode } = await other.create();
    const welcome = await memberOf(n, code);
    for (const named of [otherCode, "not a code!"]) {
      const again = await rawSocket(n, { player: "a", resume: welcome.resume, lobby: named });
      const state = await waitFrame<{ key: string }>(again.frames, (f) => f.type === "lobby");
      expect(state.key).toBe(`lobby/${code}`);
      again.ws.close();
    }
    // The named lobby heard nothing of the player: its members are as they were.
    await eventually(() => expect(lobbyOf(other).members.map((m) => m.player)).toEqual(["g"]));
    expect(lobbyOf(host).members.map((m) => m.player)).toEqual(["h", "a"]);
  });
});
