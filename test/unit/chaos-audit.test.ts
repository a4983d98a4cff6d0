import { describe, expect, it } from "vitest";
import {
  auditRun,
  emptyJournal,
  planFaults,
  type ChaosJournal,
  type FinalView,
  type HeardFrame,
  type LobbyFacts,
  type OpRecord,
} from "../../ops/chaos/index.ts";

/** A small journal written by hand: a creates ABC, b joins it and readies, c creates and leaves XYZ. */
function journal(): ChaosJournal {
  const j = emptyJournal();
  let id = 0;
  const op = (
    bot: string,
    kind: OpRecord["kind"],
    code: string | null,
    arg: OpRecord["arg"] = null,
  ): OpRecord => {
    id += 1;
    const record: OpRecord = {
      id,
      bot,
      kind,
      code,
      arg,
      sentAt: id * 10,
      endedAt: id * 10 + 5,
      outcome: "acked",
      error: null,
    };
    j.ops.push(record);
    return record;
  };
  op("a", "create", "ABC");
  op("b", "join", "ABC");
  op("b", "ready", "ABC", true);
  op("c", "create", "XYZ");
  op("c", "leave", "XYZ");
  j.heard.push(
    frame("a", 5, 1, lobby(["a"])),
    frame("a", 5, 2, lobby(["a", "b"])),
    frame("b", 5, 2, lobby(["a", "b"])),
  );
  return j;
}

function lobby(players: string[], ready: boolean[] = players.map(() => false)): LobbyFacts {
  return {
    code: "ABC",
    host: players[0] ?? null,
    members: players.map((player, i) => ({ player, ready: ready[i] ?? false, connected: true })),
  };
}

function frame(bot: string, epoch: number, seq: number, facts: LobbyFacts, at = 0): HeardFrame {
  return { bot, key: "lobby/ABC", epoch, seq, digest: JSON.stringify(facts), at, lobby: facts };
}

/** The final views matching the journal: a and b in ABC (b ready), c in no lobby. */
function views(members = ["a", "b"], ready = [false, true]): FinalView[] {
  const facts = { ...lobby(members, ready), epoch: 7, seq: 9 };
  return [
    { bot: "a", connected: true, closed: false, lobby: facts },
    { bot: "b", connected: true, closed: false, lobby: members.includes("b") ? facts : null },
    { bot: "c", connected: true, closed: false, lobby: null },
  ];
}

describe("the chaos audit", () => {
  it("finds nothing in a run where every ack is served", () => {
    const report = auditRun(journal(), views(), new Map(), 1_000);
    expect([
      report.lostAcks,
      report.lostLobbies,
      report.dualOwners,
      report.strandedClients,
      report.orderViolations,
    ]).toEqual([[], [], [], [], []]);
  });

  it("catches a planted lost ack: an acked join the owner does not serve, and an acked ready it lost", () => {
    expect(auditRun(journal(), views(["a"]), new Map(), 1_000).lostAcks).toEqual([
      "b: #2 join of ABC acked, not a member of it",
    ]);
    expect(auditRun(journal(), views(["a", "b"], [false, false]), new Map(), 1_000).lostAcks).toEqual([
      "b: ready true acked in ABC, served false",
    ]);
  });

  it("counts a client holding a stale view of a lobby whose owner took it out as stranded", () => {
    const [a, b, c] = views(["a"]);
    const stale = { ...lobby(["a", "b"], [false, true]), epoch: 7, seq: 8 };
    const report = auditRun(journal(), [a!, { ...b!, lobby: stale }, c!], new Map(), 1_000);
    expect(report.lostAcks).toEqual(["b: #2 join of ABC acked, not a member of it"]);
    expect(report.strandedClients).toEqual([
      "b sees itself in ABC, whose owner does not list it (epoch 7, seq 9)",
    ]);
  });

  it("does not count a change whose request timed out: it may or may not have been applied", () => {
    const j = journal();
    j.ops[2] = { ...j.ops[2]!, outcome: "unknown", error: "TIMEOUT" };
    expect(auditRun(j, views(["a", "b"], [false, false]), new Map(), 1_000).lostAcks).toEqual([]);
  });

  it("catches a member who left with an ack and is still served, and a lobby nobody serves", () => {
    const j = journal();
    const gone = views();
    const report = auditRun(
      j,
      [gone[0]!, gone[1]!, { ...gone[2]!, lobby: { ...lobby(["c"]), code: "XYZ", epoch: 1, seq: 1 } }],
      new Map(),
      1_000,
    );
    expect(report.lostAcks).toEqual(["c: #5 leave acked, still a member of XYZ"]);
    const unseen = views().map((v) => ({ ...v, lobby: null }));
    const lost = auditRun(j, unseen, new Map([["ABC", "gone" as const]]), 1_000);
    expect(lost.lostLobbies).toEqual(["lobby ABC (members a, b) is not served"]);
    expect(lost.strandedClients).toHaveLength(2);
  });

  it("catches a frame of an older epoch heard after a newer one, and two states with one (epoch, seq)", () => {
    const old = journal();
    old.heard.push(frame("b", 6, 3, lobby(["a", "b"])), frame("b", 5, 4, lobby(["a", "b"])));
    expect(auditRun(old, views(), new Map(), 1_000).dualOwners).toEqual([
      "b lobby/ABC: epoch 5 (seq 4) heard after epoch 6",
    ]);
    const twice = journal();
    // The same state sent again (a resume) is one voice.
    twice.heard.push(frame("b", 5, 2, lobby(["a", "b"])));
    expect(auditRun(twice, views(), new Map(), 1_000).dualOwners).toEqual([]);
    twice.heard.push(frame("a", 5, 3, lobby(["a", "b"])), frame("b", 5, 3, lobby(["a"])));
    expect(auditRun(twice, views(), new Map(), 1_000).dualOwners).toEqual([
      "lobby/ABC 5/3: a and b heard two different states",
    ]);
  });

  it("holds one owner's order per socket, and an older epoch to none of a bot's sockets", () => {
    // Moving over after a drain: seq 4 came directly on the new socket, seq 3 relayed on the old one.
    const moving = journal();
    moving.heard.push(
      { ...frame("b", 6, 4, lobby(["a", "b"])), socket: 2 },
      { ...frame("b", 6, 3, lobby(["a", "b"])), socket: 1 },
    );
    expect(auditRun(moving, views(), new Map(), 1_000).dualOwners).toEqual([]);
    moving.heard.push({ ...frame("b", 6, 2, lobby(["a", "b"])), socket: 2 });
    moving.heard.push({ ...frame("b", 5, 9, lobby(["a", "b"])), socket: 1 });
    expect(auditRun(moving, views(), new Map(), 1_000).dualOwners).toEqual([
      "b lobby/ABC: seq 2 after 4 in epoch 6",
      "b lobby/ABC: epoch 5 (seq 9) heard after epoch 6",
    ]);
  });

  it("catches a snapshot written at an older epoch after a newer one", () => {
    const j = journal();
    j.writes.push(
      { key: "lobby/ABC", revision: 10, epoch: 5, seq: 1 },
      { key: "lobby/ABC", revision: 12, epoch: 9, seq: 2 },
      { key: "lobby/ABC", revision: 13, epoch: 5, seq: 3 },
    );
    expect(auditRun(j, views(), new Map(), 1_000).dualOwners).toHaveLength(1);
  });

  it("catches SPEC §1 order: a host handed to someone other than the next connected member", () => {
    const j = journal();
    const three = {
      code: "ABC",
      host: "a",
      members: ["a", "b", "c"].map((player) => ({ player, ready: false, connected: true })),
    };
    const after = { code: "ABC", host: "c", members: three.members.slice(1) };
    j.heard.push(frame("b", 5, 3, three), frame("b", 5, 4, after));
    expect(auditRun(j, views(), new Map(), 1_000).orderViolations).toEqual([
      "lobby/ABC 5/4: host a left, c took over, not b",
    ]);
  });
});

describe("the fault schedule", () => {
  const options = { seed: 42, seconds: 60, faults: 10, nodes: 3, nats: 3, failureTimeoutMs: 3_000 };

  it("is the same for the same seed and differs for another", () => {
    expect(planFaults(options)).toEqual(planFaults(options));
    expect(planFaults({ ...options, seed: 43 })).not.toEqual(planFaults(options));
  });

  it("has each kind once in its first four faults, in order of time, each node fault healed before the next starts", () => {
    const plan = planFaults(options);
    expect(plan).toHaveLength(10);
    expect(new Set(plan.slice(0, 4).map((f) => f.kind)).size).toBe(4);
    const nodeFaults = plan.filter((f) => f.kind === "kill" || f.kind === "stop");
    for (const f of plan) expect(f.healAtMs).toBeGreaterThanOrEqual(f.atMs);
    for (let i = 1; i < plan.length; i += 1) expect(plan[i]!.atMs).toBeGreaterThan(plan[i - 1]!.atMs);
    expect(nodeFaults.every((f) => f.target >= 0 && f.target < 3)).toBe(true);
  });

  it("plans only the kinds asked for (`--faults-of`)", () => {
    const plan = planFaults({ ...options, kinds: ["drain"] });
    expect(plan.map((f) => f.kind)).toEqual(Array.from({ length: 10 }, () => "drain"));
    expect(planFaults({ ...options, nats: 1, kinds: ["natsKill"] })).toEqual([]);
  });
});
