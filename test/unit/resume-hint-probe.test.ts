import { describe, expect, it, vi } from "vitest";
import type { ActorSystem, AskResult, OwnerLocation } from "../../actors/runtime/index.ts";
import { locateLobby } from "../../gateway/session-binding.ts";
import { Session, type SessionSocket } from "../../gateway/sessions/index.ts";

/**
 * A resumed member naming its lobby probes the lobby's owner while that owner does not answer. After a
 * failover the claim moves to a survivor while the probe of the lost node is still in flight: its failure
 * says nothing of the survivor, and the member must go on at once, not wait for a claim change that
 * already happened.
 */

const KEY = "lobby/ABCD";

function recordingSocket(): SessionSocket & { frames: unknown[] } {
  const frames: unknown[] = [];
  return {
    encoding: "json",
    frames,
    send: (data: Uint8Array | string) => frames.push(JSON.parse(String(data))),
    close: () => undefined,
  } as unknown as SessionSocket & { frames: unknown[] };
}

describe("a resume's probe of its hinted lobby", () => {
  it("is sent again to the new owner when the claim moved while the lost node's probe was in flight", async () => {
    let owner: OwnerLocation = { kind: "elsewhere", url: "ws://n1/ws" };
    let lostProbe: (seen: AskResult) => void = () => undefined;
    const views: string[] = [];
    const system = {
      ask: (key: string, message: { type: string }) => {
        if (key === KEY && message.type === "view") {
          views.push(owner.kind === "elsewhere" ? owner.url : owner.kind);
          // The lost node never answers; the survivor does.
          if (views.length === 1) return new Promise<AskResult>((resolve) => (lostProbe = resolve));
          return Promise.resolve<AskResult>({ ok: true, value: {} });
        }
        if (key === "player/p1" && message.type === "get")
          return Promise.resolve<AskResult>({ ok: true, value: { lobby: KEY } });
        return Promise.resolve<AskResult>({ ok: false, code: "NOT_FOUND", message: "nothing here" });
      },
      tell: () => undefined,
    } as unknown as ActorSystem;
    // Waits end only when the claim changes; that happens once, below.
    const waiting: (() => void)[] = [];
    const waitForOwner = (): Promise<void> => new Promise<void>((resolve) => waiting.push(resolve));
    const session = new Session("s1", "p1", "P");
    const socket = recordingSocket();
    session.socket = socket;

    const located = locateLobby(
      system,
      session,
      socket,
      { ownerOf: () => Promise.resolve(owner), waitForOwner },
      "ABCD",
    );
    await vi.waitFor(() => expect(views).toEqual(["ws://n1/ws"]));
    // A survivor takes the lobby over: the claim change wakes the member...
    owner = { kind: "elsewhere", url: "ws://n3/ws" };
    for (const wake of waiting.splice(0)) wake();
    // ...and only then does the lost node's probe fail.
    await Promise.resolve();
    lostProbe({ ok: false, code: "UNAVAILABLE", message: "n1 cannot be reached", retryAfterMs: 250 });

    // The survivor's lobby answered: the player's record sends the member there.
    await vi.waitFor(() =>
      expect(socket.frames).toEqual([{ type: "redirect", url: "ws://n3/ws", reason: "lobby" }]),
    );
    await located;
    expect(views).toEqual(["ws://n1/ws", "ws://n3/ws"]);
  });
});
