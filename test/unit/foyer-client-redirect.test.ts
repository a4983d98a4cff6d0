import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isFoyerError } from "../../gateway/client/index.ts";
import { RedirectBackoff } from "../../gateway/client/redirect-backoff.ts";
import { type FakeSocket, fakeClient } from "../support/fake-socket.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const survivor = "ws://node-1/ws";
const dead = "ws://node-2/ws";

/** A client welcomed on the survivor with a join on its way. */
async function joining(callTimeoutMs = 10_000) {
  const fake = fakeClient({ urls: [survivor], callTimeoutMs });
  const done = fake.client.connect();
  await vi.advanceTimersByTimeAsync(0);
  fake.last().accept();
  fake.last().welcome();
  await done;
  const join = fake.client.join("ABCD").then(
    (value) => value,
    (error: unknown) => (isFoyerError(error) ? error.code : error),
  );
  return { ...fake, join };
}

/**
 * The survivor redirects the join to the dead node (its peers do not know it is dead yet); the socket to
 * the dead node fails, the client comes back to the survivor, which is welcomed again.
 */
async function bounce(made: FakeSocket[], waitBefore: number): Promise<void> {
  const at = made.length;
  made.at(-1)?.deliver({ type: "redirect", url: dead, reason: "lobby" });
  if (waitBefore > 1) {
    await vi.advanceTimersByTimeAsync(waitBefore - 1);
    expect(made, `no socket before ${waitBefore} ms`).toHaveLength(at);
  }
  await vi.advanceTimersByTimeAsync(1);
  expect(made.at(-1)?.url).toBe(dead);
  made.at(-1)?.drop(1006, "connection refused");
  await vi.advanceTimersByTimeAsync(10); // the reconnect's backoff (10 ms in fakeClient)
  expect(made.at(-1)?.url).toBe(survivor);
  made.at(-1)?.accept();
  made.at(-1)?.welcome("p1", true);
  await vi.advanceTimersByTimeAsync(0);
}

describe("RedirectBackoff", () => {
  it("follows the first redirect to a URL at once, then waits 50 ms doubling to 1 s", () => {
    const backoff = new RedirectBackoff();
    const waits = [0, 10, 20, 30, 40, 50, 60, 70].map((t) => backoff.next(dead, t));
    expect(waits).toEqual([0, 50, 100, 200, 400, 800, 1_000, 1_000]);
  });

  it("starts over for another URL, after a quiet window, and once a call is served", () => {
    const backoff = new RedirectBackoff();
    backoff.next(dead, 0);
    expect(backoff.next(dead, 10)).toBe(50);
    expect(backoff.next(survivor, 20)).toBe(0);
    expect(backoff.next(survivor, 5_000)).toBe(0);
    expect(backoff.next(survivor, 5_010)).toBe(50);
    backoff.served();
    expect(backoff.next(survivor, 5_020)).toBe(0);
  });
});

describe("FoyerClient redirected again and again to one URL", () => {
  it("follows the first redirect at once and waits longer before each next one", async () => {
    const { client, made, join } = await joining();
    await bounce(made, 0);
    await bounce(made, 50);
    await bounce(made, 100);
    await bounce(made, 200);
    // Served at last (the survivor took the lobby over): the next redirect is followed at once.
    made.at(-1)?.deliver({ type: "result", id: 1, value: { code: "ABCD" } });
    expect(await join).toEqual({ code: "ABCD" });
    await bounce(made, 0);
    client.close();
  });

  it("never waits past the call's deadline", async () => {
    const { client, made, join } = await joining(130);
    await bounce(made, 0); // at about 11 ms
    await bounce(made, 50); // at about 72 ms: the next wait would be 100 ms, the deadline is closer
    made.at(-1)?.deliver({ type: "redirect", url: dead, reason: "lobby" });
    await vi.advanceTimersByTimeAsync(60);
    expect(made.at(-1)?.url).toBe(dead);
    expect(await join).toBe("TIMEOUT");
    client.close();
  });
});
