import { describe, expect, it } from "vitest";
import type { AskResult } from "../../actors/runtime/index.ts";
import { decodeServerFrame } from "../../gateway/protocol/codec.ts";
import { locateLobby } from "../../gateway/session-binding.ts";
import { Session } from "../../gateway/sessions/index.ts";
import { gatewayOverActors, type Faults } from "./support/gateway-faults.ts";

/**
 * A member kicked while its socket was away comes back to a lobby that no longer lists it, while its
 * registry has not heard of the kick yet (the lobby's `left` to it is in flight, or was lost with a node):
 * the gateway must not leave the client showing that lobby, since no frame of it will ever reach it.
 */

function codeOf(result: AskResult): string {
  if (!result.ok) throw new Error(`refused ${result.code}: ${result.message}`);
  return (result.value as { code: string }).code;
}

/** A socket that keeps the frame types sent to it. */
function recordingSocket() {
  const frames: string[] = [];
  return {
    frames,
    socket: {
      encoding: "json" as const,
      send: (data: Uint8Array | string) => {
        const decoded = decodeServerFrame(data);
        if (decoded.ok) frames.push(decoded.frame.type);
      },
      close: () => undefined,
    },
  };
}

async function kickedWhileAway(hint: boolean) {
  const faults: Faults = {};
  const { h, create, members, requests, session: alice, sessionOf } = gatewayOverActors(faults);
  const code = codeOf(await create(1));
  const key = `lobby/${code}`;
  const bob = sessionOf("bob", "s2");
  expect(codeOf(await requests.handle(bob, { type: "join", id: 1, code }))).toBe(code);
  // The lobby's word to bob's registry that he is out never arrives.
  faults.dropActorTell = (to, message) => to === "player/bob" && message.type === "left";
  expect(await requests.handle(alice, { type: "kick", id: 2, player: "bob", ban: true })).toMatchObject({
    ok: true,
  });
  await h.settle();
  expect(members(key)).toEqual(["alice"]);
  const registry = await h.system.ask("player/bob", { type: "get" });
  expect(registry).toMatchObject({ ok: true, value: { lobby: key } });
  // Bob's client, which never heard `kicked`, resumes on a new socket.
  const back = new Session("s2", "bob", "bob");
  back.lobby = key;
  const { frames, socket } = recordingSocket();
  back.socket = socket;
  await locateLobby(h.system, back, socket, {}, hint ? code : undefined);
  return { frames, session: back };
}

describe("a member kicked while away, back before its registry heard", () => {
  it("is told it is in no lobby, through its registry's record", async () => {
    const { frames, session } = await kickedWhileAway(false);
    expect(frames).toEqual(["noLobby"]);
    expect(session.lobby).toBeNull();
  });

  it("is told it is in no lobby when its client named that lobby in its hello", async () => {
    const { frames, session } = await kickedWhileAway(true);
    expect(frames).toEqual(["noLobby"]);
    expect(session.lobby).toBeNull();
  });

  it("is told it is in no lobby when the lobby closed meanwhile", async () => {
    const faults: Faults = {};
    const { h, create, requests, session: alice } = gatewayOverActors(faults);
    const key = `lobby/${codeOf(await create(1))}`;
    faults.dropActorTell = (to, message) => to === "player/alice" && message.type === "left";
    expect(await requests.handle(alice, { type: "leave", id: 2 })).toMatchObject({ ok: true });
    await h.settle();
    expect(h.system.peek(key)).toBeUndefined();
    const back = new Session("s1", "alice", "alice");
    const { frames, socket } = recordingSocket();
    back.socket = socket;
    await locateLobby(h.system, back, socket);
    expect(frames).toEqual(["noLobby"]);
    expect(back.lobby).toBeNull();
  });
});
