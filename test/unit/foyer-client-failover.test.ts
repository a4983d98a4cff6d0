import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { fakeClient, lobbyFrame } from "../support/fake-socket.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A client welcomed by a node (that reads `hello.lobby` or not) and shown its lobby, then dropped. */
async function droppedInLobby(lobbyHint: boolean) {
  const { client, made, last } = fakeClient({ urls: ["ws://node-1/ws", "ws://node-2/ws"] });
  const done = client.connect();
  await vi.advanceTimersByTimeAsync(0);
  last().accept();
  last().welcome("p1", false, lobbyHint ? { lobbyHint: true } : {});
  await done;
  last().deliver(lobbyFrame(1, 1, ["p1"]));
  last().drop();
  await vi.advanceTimersByTimeAsync(20);
  last().accept();
  return { client, made, last };
}

describe("FoyerClient resume with its lobby", () => {
  it("names the lobby it was in when it resumes on a fleet that reads it", async () => {
    const { client, last } = await droppedInLobby(true);
    expect(last().sent[0]).toMatchObject({ type: "hello", resume: "resume-token", lobby: "ABCD" });
    client.close();
  });

  it("does not name it to a node whose welcome did not offer it", async () => {
    const { client, last } = await droppedInLobby(false);
    expect(last().sent[0]).toMatchObject({ type: "hello", resume: "resume-token" });
    expect(last().sent[0]).not.toHaveProperty("lobby");
    client.close();
  });

  it("resumes without it after a node of an older release refuses the hello, instead of giving up", async () => {
    const { client, made, last } = await droppedInLobby(true);
    const refused = last();
    refused.drop(CloseCodes.PROTOCOL.code, "PROTOCOL");
    await vi.advanceTimersByTimeAsync(20);
    expect(made.length).toBeGreaterThan(2);
    last().accept();
    expect(last().sent[0]).toMatchObject({ type: "hello", resume: "resume-token" });
    expect(last().sent[0]).not.toHaveProperty("lobby");
    client.close();
  });
});

describe("FoyerClient after losing its node", () => {
  it("goes first to a random other URL of three or more, then on in turn", async () => {
    for (const [draw, expected] of [
      [0, "ws://node-2/ws"],
      [0.99, "ws://node-3/ws"],
    ] as const) {
      const { client, made } = fakeClient({
        urls: ["ws://node-1/ws", "ws://node-2/ws", "ws://node-3/ws"],
      });
      const done = client.connect();
      await vi.advanceTimersByTimeAsync(0);
      made.at(-1)!.accept();
      made.at(-1)!.welcome();
      await done;
      const random = vi.spyOn(Math, "random").mockReturnValue(draw);
      made.at(-1)!.drop();
      await vi.advanceTimersByTimeAsync(20);
      random.mockRestore();
      expect(made.at(-1)!.url).toBe(expected);
      client.close();
    }
  });
});
