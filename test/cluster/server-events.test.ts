import { connect, type NatsConnection } from "nats";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, lobbyOf } from "../support/node.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * The studio's side of a fleet (docs/server-api.md): a service of its own, on its own NATS connection,
 * subscribes to `foyer.events.>` and hears lobbies made, started and ended and players leaving as SDK
 * clients act; the server API of either node serves a lobby that lives on the other.
 */

const adminToken = "cluster-admin-token-0123";
const fleet = useInProcessFleet(["ev1", "ev2"], () => ({ adminToken, returnAfterEndSeconds: "0" }));

type Event = Record<string, unknown> & {
  type: string;
  key: string;
  node: string;
  epoch: number;
  seq: number;
};

let studio: NatsConnection | undefined;
afterAll(async () => {
  await studio?.close();
});

async function api(node: RunningNode, method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, node.adminUrl), {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("studio events on NATS", () => {
  it("a subscriber hears created, started, player left and ended; any node's API serves any lobby", async () => {
    const [ev1, ev2] = fleet.nodes as [RunningNode, RunningNode];
    studio = await connect({ servers: [...fleet.natsUrls()] });
    const heard: Event[] = [];
    const sub = studio.subscribe("foyer.events.>", {
      callback: (err, msg) => {
        if (err === null) heard.push({ subject: msg.subject, ...msg.json<Event>() });
      },
    });
    await studio.flush();

    const alice = await fleet.connect(ev1, "ev-alice");
    const bob = await fleet.connect(ev2, "ev-bob");
    const { code } = await alice.create();
    await bob.join(code); // redirected to ev1, the lobby's owner
    await eventually(() =>
      expect(lobbyOf(alice).members.map((m) => m.player)).toEqual(["ev-alice", "ev-bob"]),
    );

    // ev2's API reads the lobby ev1 owns (the ask is carried there).
    const read = await api(ev2, "GET", `/api/v1/lobbies/${code}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ lobby: { code, host: "ev-alice" } });

    const { room } = await alice.start("duel");
    await eventually(() => expect(bob.room).toMatchObject({ code: room }), 20_000);
    await bob.finish();
    await eventually(() => expect(lobbyOf(alice).playing).toBe(false), 20_000);

    // Kicked through the other node's API.
    const kicked = await api(ev2, "POST", `/api/v1/lobbies/${code}/kick`, { player: "ev-bob" });
    expect(kicked.status).toBe(200);
    await alice.leave();

    const key = `lobby/${code}`;
    const ofLobby = (): Event[] => heard.filter((e) => e.key === key);
    await eventually(() => {
      expect(ofLobby().map((e) => [e.type, e.player ?? null, e.reason ?? null])).toEqual([
        ["lobby.created", null, null],
        ["lobby.started", null, null],
        ["player.left", "ev-bob", "kicked"],
        ["player.left", "ev-alice", "left"],
        ["lobby.ended", null, null],
      ]);
    }, 20_000);
    const events = ofLobby();
    expect(events.every((e) => e.node === "ev1" && e.subject === `foyer.events.${e.type}`)).toBe(true);
    expect(events[1]).toMatchObject({ code, room, mode: "duel", players: ["ev-alice", "ev-bob"] });
    // One owner throughout: one epoch, and (seq, index) rises with each event, never twice the same.
    expect(new Set(events.map((e) => e.epoch)).size).toBe(1);
    const stamps = events.map((e) => [e.seq, e.index as number] as const);
    for (let i = 1; i < stamps.length; i++) {
      const [seq, index] = stamps[i]!;
      const [prevSeq, prevIndex] = stamps[i - 1]!;
      expect(seq > prevSeq || (seq === prevSeq && index > prevIndex), JSON.stringify(stamps)).toBe(true);
    }

    await eventually(() => {
      expect(heard.find((e) => e.key === `room/${room}`)).toMatchObject({
        type: "room.ended",
        lobby: key,
        players: ["ev-alice", "ev-bob"],
        reason: "finished",
        result: null,
      });
    }, 20_000);
    sub.unsubscribe();
  }, 90_000);

  it("a lobby made through one node's API for players: they connect to the other and find it", async () => {
    const [ev1, ev2] = fleet.nodes as [RunningNode, RunningNode];
    const created = await api(ev1, "POST", "/api/v1/lobbies", {
      host: { id: "ev-carol" },
      members: [{ id: "ev-dave" }],
    });
    expect(created.status).toBe(201);
    const code = (created.body.lobby as { code: string }).code;
    const dave = await fleet.connect(ev2, "ev-dave"); // redirected to ev1 when its registry names the lobby
    await eventually(() => expect(lobbyOf(dave).code).toBe(code), 20_000);
    const carol = await fleet.connect(ev1, "ev-carol");
    await eventually(() => {
      expect(lobbyOf(carol).members.map((m) => [m.player, m.connected])).toEqual([
        ["ev-carol", true],
        ["ev-dave", true],
      ]);
    }, 20_000);
  }, 90_000);
});
