import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FoyerClient, isFoyerError, type FoyerClientOptions } from "../../gateway/client/index.ts";
import { fakeClient as clientWith, lobbyFrame, pingingFakeSockets } from "../support/fake-socket.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A client connected to its first fake socket. */
async function connected(options: Partial<FoyerClientOptions> = {}) {
  const fake = clientWith(options);
  const done = fake.client.connect();
  await vi.advanceTimersByTimeAsync(0);
  fake.last().accept();
  fake.last().welcome();
  await done;
  return fake;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isFoyerError(error)) return error.code;
    throw error;
  }
  throw new Error("it did not fail");
}

describe("FoyerClient frames", () => {
  it("drops a frame from an older epoch, and a repeated one, for the same key", async () => {
    const { client, last } = await connected();
    const seen: number[] = [];
    client.on("lobby", (l) => seen.push(l.epoch * 100 + l.seq));
    last().deliver(lobbyFrame(5, 1, ["p1", "p2"]));
    last().deliver(lobbyFrame(4, 9, ["p1"])); // a late frame of the key's old owner
    last().deliver(lobbyFrame(5, 1, ["p1"])); // delivered twice
    expect(seen).toEqual([501]);
    expect(client.lobby?.members.map((m) => m.player)).toEqual(["p1", "p2"]);
    last().deliver(lobbyFrame(6, 1, ["p1", "p2", "p3"])); // the new owner's state
    expect(seen).toEqual([501, 601]);
    expect(client.lobby?.members).toHaveLength(3);
  });
});

describe("FoyerClient connecting", () => {
  it("rejects connect() with UNAVAILABLE after connectTimeoutMs, and keeps trying until close()", async () => {
    const { client, made, last } = clientWith({ connectTimeoutMs: 1_000 });
    const done = failure(client.connect());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await done).toBe("UNAVAILABLE");
    expect(made[0]?.closedWith).toBeDefined(); // the silent attempt was given up
    await vi.advanceTimersByTimeAsync(20);
    expect(made).toHaveLength(2);
    const events: boolean[] = [];
    client.on("connected", (c) => events.push(c.resumed));
    last().accept();
    last().welcome();
    expect(events).toEqual([false]);
    await client.connect(); // already connected: resolves at once
    client.close();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(made).toHaveLength(2);
  });

  it("treats a token function that rejects as a failed attempt and tries again after a backoff", async () => {
    const token = vi.fn<() => Promise<string>>();
    token.mockRejectedValueOnce(new Error("backend down")).mockResolvedValue("fresh");
    const { client, made, last } = clientWith({ token });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(made).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(token).toHaveBeenCalledTimes(2);
    last().accept();
    expect(last().sent[0]).toMatchObject({ type: "hello", token: "fresh" });
    last().welcome();
    await done;
  });

  it("treats a URL the socket refuses to parse as a failed attempt and moves to the next URL", async () => {
    const { client, made, last } = clientWith({ urls: ["not a url", "ws://node-2/ws"] });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(20);
    expect(made.map((s) => s.url)).toEqual(["ws://node-2/ws"]);
    last().accept();
    last().welcome();
    await done;
  });

  it("opens one socket for two connect() calls made while the token is on its way", async () => {
    const token = () => new Promise<string>((resolve) => setTimeout(() => resolve("tok"), 5));
    const { client, made, last } = clientWith({ token });
    const first = client.connect();
    const second = client.connect();
    await vi.advanceTimersByTimeAsync(5);
    expect(made).toHaveLength(1);
    last().accept();
    expect(last().sent.filter((f) => f.type === "hello")).toHaveLength(1);
    last().welcome();
    await Promise.all([first, second]);
  });

  it("fails a waiting connect() and every pending call when closed", async () => {
    const { client } = clientWith();
    const done = failure(client.connect());
    const call = failure(client.ready(true));
    const closed = client.next("closed");
    client.close();
    expect(await done).toBe("UNAVAILABLE");
    expect(await call).toBe("UNAVAILABLE");
    expect(await closed).toMatchObject({ code: 1000 });
  });
});

describe("FoyerClient calls", () => {
  it("re-sends a retryable refusal with the same id after retryAfterMs", async () => {
    const { client, last } = await connected();
    const call = client.ready(true);
    last().deliver({ type: "error", id: 1, code: "RATE_LIMITED", message: "slow down", retryAfterMs: 300 });
    await vi.advanceTimersByTimeAsync(299);
    expect(last().requests()).toEqual(["ready#1"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(last().requests()).toEqual(["ready#1", "ready#1"]);
    last().deliver({ type: "result", id: 1, value: null });
    expect(await call).toBeNull();
  });

  it("never re-sends a call refused with a final error; re-sends unanswered ones after a reconnect", async () => {
    const { client, made, last } = await connected();
    const refused = failure(client.ready(true));
    const unanswered = client.profile("Ann");
    last().deliver({ type: "error", id: 1, code: "NOT_IN_LOBBY", message: "you are not in a lobby" });
    expect(await refused).toBe("NOT_IN_LOBBY");
    last().drop();
    await vi.advanceTimersByTimeAsync(20);
    expect(made).toHaveLength(2);
    last().accept();
    expect(last().sent[0]).toMatchObject({ type: "hello", resume: "resume-token" });
    last().welcome("p1", true);
    expect(last().requests()).toEqual(["profile#2"]);
    last().deliver({ type: "result", id: 2, value: null });
    expect(await unanswered).toBeNull();
  });

  it("clears its lobby and emits left once leave is answered", async () => {
    const { client, last } = await connected();
    last().deliver(lobbyFrame(1, 1, ["p1", "p2"]));
    const left = vi.fn();
    client.on("left", left);
    const leaving = client.leave();
    last().deliver({ type: "result", id: 1, value: null });
    await leaving;
    expect(client.lobby).toBeNull();
    expect(left).toHaveBeenCalledWith({ code: "ABCD" });
  });
});

describe("liveness: a node that goes silent (frozen, or cut off without a close)", () => {
  it("a browser's socket (no ping()): a ping frame past half of a short livenessMs, left past all of it; the client resumes elsewhere", async () => {
    const { client, made, last } = await connected({
      urls: ["ws://node-1/ws", "ws://node-2/ws"],
      livenessMs: 8_000,
    });
    const first = last();
    expect("ping" in first).toBe(false);
    await vi.advanceTimersByTimeAsync(3_900);
    expect(first.sent.filter((f) => f.type === "ping")).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(first.sent.filter((f) => f.type === "ping")).toHaveLength(1);
    expect(made).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(3_950);
    expect(first.closedWith?.reason).toBe("node silent");
    // One ping per silence: none more while it waited.
    expect(first.sent.filter((f) => f.type === "ping")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(made).toHaveLength(2);
    expect(last().url).toBe("ws://node-2/ws");
    last().accept();
    expect(last().sent[0]).toMatchObject({ type: "hello", resume: "resume-token" });
    client.close();
  });

  it("in Node (a socket with ping()): WebSocket pings, never a frame; the node's pings and pongs count as hearing it", async () => {
    const { Socket, made } = pingingFakeSockets();
    const client = new FoyerClient({
      urls: ["ws://node-1/ws", "ws://node-2/ws"],
      token: "tok",
      reconnectMinMs: 10,
      reconnectMaxMs: 10,
      WebSocket: Socket,
    });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    const first = made[0]!;
    first.accept();
    first.welcome();
    await done;
    // The default livenessMs (45 s): a ping past 35 s of silence.
    await vi.advanceTimersByTimeAsync(34_900);
    expect(first.pings).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(first.pings).toBe(1);
    first.pong();
    // The node's heartbeat, a WebSocket ping every 30 s, keeps it from pinging at all: ten minutes of it.
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(30_000);
      first.nodePing();
    }
    expect(first.pings).toBe(1);
    expect(first.sent.filter((f) => f.type === "ping")).toEqual([]);
    expect(first.closedWith).toBeUndefined();
    // The node falls silent: one ping past 35 s, left at 45 s, resumed elsewhere.
    await vi.advanceTimersByTimeAsync(35_000);
    expect(first.pings).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(first.closedWith?.reason).toBe("node silent");
    expect(first.pings).toBe(2);
    await vi.advanceTimersByTimeAsync(20);
    expect(made).toHaveLength(2);
    expect(made[1]!.url).toBe("ws://node-2/ws");
    client.close();
  });

  it("measures its round trip with ping/pong and keys pingData by the welcome's region", async () => {
    const { client, last } = await connected();
    expect(client.region).toBeNull();
    const measuring = client.measurePing();
    const ping = last().sent.find((f) => f.type === "ping");
    expect(ping).toMatchObject({ type: "ping", t: expect.any(Number) });
    await vi.advanceTimersByTimeAsync(42);
    // Another pong's t is not this ping's answer.
    last().deliver({ type: "pong", t: Number(ping?.t) - 1, now: 0 });
    last().deliver({ type: "pong", t: ping?.t, now: 0 });
    expect(await measuring).toBe(42);
    // A node without a region: nothing to key the ping by.
    const none = client.pingData(1);
    await vi.advanceTimersByTimeAsync(0);
    const again = last()
      .sent.filter((f) => f.type === "ping")
      .at(-1);
    last().deliver({ type: "pong", t: again?.t, now: 0 });
    expect(await none).toEqual({});
    // Unanswered: rejected after the timeout.
    const lost = client.measurePing(100);
    const rejected = expect(lost).rejects.toThrow("no pong in time");
    await vi.advanceTimersByTimeAsync(100);
    await rejected;
    client.close();
  });

  it("takes the node's region from the welcome", async () => {
    const fake = clientWith();
    const done = fake.client.connect();
    await vi.advanceTimersByTimeAsync(0);
    fake.last().accept();
    fake.last().deliver({
      type: "welcome",
      protocol: 1,
      session: "s",
      resume: "r",
      player: { id: "p1", name: "p1" },
      node: "n1",
      region: "eu-west",
      resumed: false,
    });
    await done;
    expect(fake.client.region).toBe("eu-west");
    const data = fake.client.pingData(2);
    for (let i = 0; i < 2; i++) {
      await vi.advanceTimersByTimeAsync(10 + i * 5);
      const ping = fake
        .last()
        .sent.filter((f) => f.type === "ping")
        .at(-1);
      fake.last().deliver({ type: "pong", t: ping?.t, now: 0 });
    }
    // The best of the samples.
    expect(await data).toEqual({ "eu-west": 10 });
    fake.client.close();
  });

  it("keeps pinging a node that answers each ping within the same millisecond", async () => {
    const { Socket, made } = pingingFakeSockets();
    const client = new FoyerClient({
      urls: ["ws://node-1/ws"],
      token: "tok",
      livenessMs: 6_000,
      WebSocket: Socket,
    });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    const socket = made[0]!;
    socket.answerAtOnce = true;
    socket.accept();
    socket.welcome();
    await done;
    // A ping every 3 s for ten minutes, each answered at once: never taken for a silent node.
    await vi.advanceTimersByTimeAsync(600_000);
    expect(socket.pings).toBeGreaterThanOrEqual(199);
    expect(socket.closedWith).toBeUndefined();
    expect(made).toHaveLength(1);
    client.close();
  });

  it("keeps a socket whose node answers its pings", async () => {
    const { client, made, last } = await connected({ livenessMs: 6_000 });
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(3_100);
      expect(last().sent.filter((f) => f.type === "ping")).toHaveLength(i + 1);
      last().deliver({ type: "pong", t: 0, now: 0 });
    }
    expect(made).toHaveLength(1);
    expect(last().closedWith).toBeUndefined();
    client.close();
  });

  it("is off with livenessMs 0", async () => {
    const { client, made, last } = await connected({ livenessMs: 0 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(made).toHaveLength(1);
    expect(last().sent.filter((f) => f.type === "ping")).toEqual([]);
    client.close();
  });
});

describe("noLobby after a hello", () => {
  it("clears a lobby the client still shows and emits left (it was away past its grace)", async () => {
    const { client, last } = await connected();
    last().deliver(lobbyFrame(1, 1, ["p1", "p2"]));
    expect(client.lobby?.code).toBe("ABCD");
    const left: string[] = [];
    client.on("left", (event) => left.push(event.code));
    last().deliver({ type: "noLobby" });
    expect(client.lobby).toBeNull();
    expect(left).toEqual(["ABCD"]);
    // Said again with no lobby shown: nothing happens.
    last().deliver({ type: "noLobby" });
    expect(left).toEqual(["ABCD"]);
    client.close();
  });
});

describe("FoyerClient acks", () => {
  /** A client welcomed by a node that reads acks (or not), and the `id:ack` of every request it sent. */
  async function acking(nodeReadsAcks = true) {
    const fake = clientWith({ callTimeoutMs: 1_000, livenessMs: 0 });
    const done = fake.client.connect();
    await vi.advanceTimersByTimeAsync(0);
    fake.last().accept();
    fake.last().welcome("p1", false, nodeReadsAcks ? { acks: true } : {});
    await done;
    const acks = (socket = fake.last()) =>
      socket.sent.filter((f) => f.type !== "hello").map((f) => `${String(f.id)}:${String(f.ack)}`);
    return { ...fake, acks };
  }

  it("tells the node, with each request, every id below its oldest unsettled call", async () => {
    const { client, last, acks } = await acking();
    const first = client.ready(true);
    const second = client.ready(false);
    // Nothing below 1; the first call is still out when the second goes.
    expect(acks()).toEqual(["1:undefined", "2:undefined"]);
    last().deliver({ type: "result", id: 2, value: null });
    await second;
    const third = client.ready(true);
    expect(acks().at(-1)).toBe("3:undefined");
    last().deliver({ type: "result", id: 1, value: null });
    last().deliver({ type: "result", id: 3, value: null });
    await Promise.all([first, third]);
    const fourth = client.ready(false);
    expect(acks().at(-1)).toBe("4:3");
    // A call that timed out is never sent again: it is settled too.
    const fifth = failure(client.ready(true));
    last().deliver({ type: "result", id: 4, value: null });
    await fourth;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await fifth).toBe("TIMEOUT");
    void client.ready(false);
    expect(acks().at(-1)).toBe("6:5");
  });

  it("sends no ack to a node whose welcome does not say it reads them (an older release)", async () => {
    const { client, last, acks } = await acking(false);
    const first = client.ready(true);
    last().deliver({ type: "result", id: 1, value: null });
    await first;
    void client.ready(false);
    expect(acks()).toEqual(["1:undefined", "2:undefined"]);
  });

  it("keeps a call it sent twice out of its acks for two minutes after it settles", async () => {
    const { client, last, made, acks } = await acking();
    const first = client.ready(true);
    // The socket drops before the answer: the call goes again, same id, once the client is back.
    last().drop();
    await vi.advanceTimersByTimeAsync(100);
    last().accept();
    last().welcome("p1", true, { acks: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(acks()).toEqual(["1:undefined"]);
    last().deliver({ type: "result", id: 1, value: null });
    await first;
    // Its first copy may still be on its way through the old socket's node: id 1 stays unacknowledged.
    const second = client.ready(false);
    expect(acks().at(-1)).toBe("2:undefined");
    last().deliver({ type: "result", id: 2, value: null });
    await second;
    await vi.advanceTimersByTimeAsync(120_000);
    void client.ready(true);
    expect(acks().at(-1)).toBe("3:2");
    expect(made).toHaveLength(2);
  });
  it("acks a call sent twice at once when every copy was answered, or when only one copy ever went out", async () => {
    const { client, last, acks } = await acking();
    // Refused as retryable, then answered: both copies are accounted for.
    const first = client.ready(true);
    last().deliver({ type: "error", id: 1, code: "UNAVAILABLE", message: "busy", retryAfterMs: 50 });
    await vi.advanceTimersByTimeAsync(50);
    last().deliver({ type: "result", id: 1, value: null });
    await first;
    expect(acks()).toEqual(["1:undefined", "1:undefined"]);
    // Made while the socket is down: it goes out once, with the welcome.
    last().drop();
    const second = client.ready(false);
    await vi.advanceTimersByTimeAsync(100);
    last().accept();
    last().welcome("p1", true, { acks: true });
    await vi.advanceTimersByTimeAsync(0);
    last().deliver({ type: "result", id: 2, value: null });
    await second;
    void client.ready(true);
    expect(acks()).toEqual(["2:1", "3:2"]);
  });
});
