import { describe, expect, it } from "vitest";
import { Session, heldOnClose, inKeyHere, type SessionSocket } from "../../gateway/sessions/index.ts";

/**
 * A seated session holds only what it uses: its held disconnects are made on the first one, and its
 * settled registry lookup is one promise shared by every session. Both must behave as a session's own.
 */

const quietSocket: SessionSocket = { encoding: "json", send: () => undefined, close: () => undefined };

function entering(id: string, key: string): Session {
  const s = new Session(id, `player-${id}`, id);
  s.socket = quietSocket;
  s.entering = key;
  return s;
}

describe("a session's held disconnects, made on first use", () => {
  it("hold one session's keys only: another session still holds none", () => {
    const a = entering("a", "lobby/ABAB");
    const b = entering("b", "lobby/BABA");
    expect(inKeyHere(a, "lobby/ABAB")).toBe(true);
    expect([...a.heldDisconnects]).toEqual(["lobby/ABAB"]);
    expect(b.heldDisconnects.size).toBe(0);
    expect([...new Session("c", "player-c", "c").heldDisconnects]).toEqual([]);
  });

  it("hold again after the last one was let go, and are told on close", () => {
    const s = entering("a", "lobby/ABAB");
    s.holdDisconnect("lobby/ABAB");
    expect(s.releaseDisconnect("lobby/ABAB")).toBe(true);
    expect(s.releaseDisconnect("lobby/ABAB")).toBe(false);
    expect(s.heldDisconnects.size).toBe(0);
    s.holdDisconnect("lobby/BBBB");
    s.holdDisconnect("room/AAAA");
    expect([...s.heldDisconnects]).toEqual(["lobby/BBBB", "room/AAAA"]);
    const told: string[] = [];
    heldOnClose(s, { tell: (key) => told.push(key) });
    expect(told).toEqual(["lobby/BBBB", "room/AAAA"]);
    expect(s.heldDisconnects.size).toBe(0);
  });
});

describe("a session's registry lookup (`located`)", () => {
  it("is the newest lookup while it runs, even when an older one settles after it was replaced", async () => {
    const s = new Session("a", "player-a", "a");
    let settleOlder = (): void => undefined;
    let settleNewer = (): void => undefined;
    const older = new Promise<void>((resolve) => (settleOlder = resolve));
    const newer = new Promise<void>((resolve) => (settleNewer = resolve));
    s.located = older;
    s.located = newer;
    settleOlder();
    await older;
    await Promise.resolve();
    expect(s.located).toBe(newer);
    settleNewer();
    await newer;
    await Promise.resolve();
    expect(s.located).not.toBe(newer);
    await expect(s.located).resolves.toBeUndefined();
  });

  it("once settled, is one promise shared by every session, a rejected lookup included", async () => {
    const fresh = new Session("a", "player-a", "a");
    const looked = new Session("b", "player-b", "b");
    const failed = new Session("c", "player-c", "c");
    const lookup = Promise.resolve();
    looked.located = lookup;
    const refused = Promise.reject(new Error("lookup failed"));
    failed.located = refused;
    await lookup;
    await refused.catch(() => undefined);
    await Promise.resolve();
    expect(looked.located).toBe(fresh.located);
    expect(failed.located).toBe(fresh.located);
  });
});
