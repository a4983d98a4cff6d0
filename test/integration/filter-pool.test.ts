import { afterEach, describe, expect, it } from "vitest";
import { matchedLobbyKey, queueKind, type FilterRequest } from "../../actors/matchmaking/index.ts";
import { createHarness } from "../../actors/runtime/index.ts";
import { FilterPool, filterEndpoint } from "../../ops/filters/index.ts";
import { eventually } from "../support/node.ts";
import { cursorParty, find } from "../unit/support/matchmaking-driver.ts";

/** SPEC §3: filters run last, in worker threads with a time limit; a bad filter rejects and is logged. */

const filtersModule = new URL("../support/filters.ts", import.meta.url);

/** Log lines the pool wrote. */
function capture() {
  const lines: { obj: unknown; msg: string }[] = [];
  return {
    lines,
    log: {
      warn: (obj: unknown, msg?: string) => {
        lines.push({ obj, msg: msg ?? "" });
      },
    } as never,
  };
}

const data = (filter: object, level: number): FilterRequest["data"] => ({
  step: 0,
  filter: filter as FilterRequest["data"]["filter"],
  matchCandidate: { settings: { level } },
  pingData: {},
});

let pool: FilterPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe("the filter pool", () => {
  it("runs a filter registered by name and returns its verdict", async () => {
    const { log, lines } = capture();
    pool = new FilterPool({
      module: filtersModule,
      size: 1,
      callTimeoutMs: 2_000,
      waitTimeoutMs: 15_000,
      log,
    });
    expect(await pool.run("levels", data({ maxLevel: 5 }, 3))).toBe(true);
    expect(await pool.run("levels", data({ maxLevel: 5 }, 9))).toBe(false);
    expect(lines).toEqual([]);
  });

  it("a filter that throws rejects the candidate and is logged", async () => {
    const { log, lines } = capture();
    pool = new FilterPool({
      module: filtersModule,
      size: 1,
      callTimeoutMs: 2_000,
      waitTimeoutMs: 15_000,
      log,
    });
    expect(await pool.run("throws", data({}, 1))).toBe(false);
    expect(lines.map((l) => l.msg)).toEqual(["filter threw; candidate rejected"]);
    expect(JSON.stringify(lines[0]?.obj)).toContain("studio bug");
    // The worker survives a throw.
    expect(await pool.run("levels", data({}, 1))).toBe(true);
  });

  it("an unknown filter name rejects and is logged", async () => {
    const { log, lines } = capture();
    pool = new FilterPool({
      module: filtersModule,
      size: 1,
      callTimeoutMs: 2_000,
      waitTimeoutMs: 15_000,
      log,
    });
    expect(await pool.run("nope", data({}, 1))).toBe(false);
    expect(JSON.stringify(lines[0]?.obj)).toContain("no filter named nope");
  });

  it("a filter that loops forever is cut off at the time limit; its worker is replaced and the next call runs", async () => {
    const { log, lines } = capture();
    pool = new FilterPool({ module: filtersModule, size: 1, callTimeoutMs: 300, waitTimeoutMs: 15_000, log });
    expect(await pool.run("levels", data({}, 1))).toBe(true); // the worker is loaded
    const started = Date.now();
    expect(await pool.run("loops", data({}, 1))).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(lines.map((l) => l.msg)).toEqual(["filter took too long; candidate rejected"]);
    expect(await pool.run("levels", data({}, 1))).toBe(true);
  });

  it("a filter that ends its worker rejects, is logged, and the worker is replaced", async () => {
    const { log, lines } = capture();
    pool = new FilterPool({
      module: filtersModule,
      size: 1,
      callTimeoutMs: 2_000,
      waitTimeoutMs: 15_000,
      log,
    });
    expect(await pool.run("exits", data({}, 1))).toBe(false);
    expect(lines.map((l) => l.msg)).toEqual(["filter worker exited; replaced"]);
    expect(await pool.run("levels", data({}, 1))).toBe(true);
  });

  it("a filters module that does not load: calls reject, it is logged, and it is not restarted in a loop", async () => {
    const { log, lines } = capture();
    const missing = new URL("../support/no-such-filters.ts", import.meta.url);
    pool = new FilterPool({ module: missing, size: 1, waitTimeoutMs: 1_500, restartDelayMs: 60_000, log });
    expect(await pool.run("levels", data({}, 1))).toBe(false);
    const failures = lines.filter((l) => l.msg.startsWith("filter worker"));
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures.length).toBeLessThanOrEqual(2); // an error, and maybe its exit: no restart yet
    expect(lines.at(-1)?.msg).toBe("no filter worker was free in time; candidate rejected");
  });

  it("the queue keeps processing while a filter loops: the verdict comes back as a reject, the next entry is placed", async () => {
    const { log } = capture();
    pool = new FilterPool({ module: filtersModule, size: 1, callTimeoutMs: 300, waitTimeoutMs: 15_000, log });
    const looping = { ...cursorParty, id: "looping", filter: "loops" };
    const levels = { ...cursorParty, id: "levels", filter: "levels" };
    const h = createHarness({
      kinds: [{ kind: queueKind({ lobbyTypes: [looping, levels] }) as never, createOnDemand: true }],
    });
    h.system.mount("filters", filterEndpoint(pool, h.system, log));
    // Each queue's view gets one open lobby (a report, as its matched lobby would send it).
    for (const type of ["looping", "levels"]) {
      const lobby = matchedLobbyKey(type, 9);
      h.system.tell(`queue/${type}`, {
        type: "lobbyStatus",
        lobby,
        version: 1,
        region: "eu",
        phase: "pre_game",
        rating: 100,
        open: true,
        free: { all: 7 },
        owner: "owner",
        settings: { level: 1 },
        round: 1,
        timetable: { createdAt: 0, early: 0, onTime: 0, tooLate: 0 },
        members: [],
      });
    }
    await h.system.ask("queue/looping", find("alice", 100));
    await h.system.ask("queue/levels", find("bob", 100));
    await h.clock.advance(2_000);
    await h.settle();
    const stageOf = (type: string) =>
      (h.system.peek(`queue/${type}`) as { entries: { stage: { status: string } }[] }).entries[0]?.stage
        .status;
    // Bob's filter answers at once: he is sent to the lobby while Alice's filter still loops.
    await eventually(async () => {
      await h.settle();
      expect(stageOf("levels")).toBe("placing");
    });
    // Alice's looping filter is cut off by the pool and answered as a reject: she misses the step. The
    // queue's own filter deadline is on the manual clock, which stays put: only the pool's verdict does it.
    await eventually(async () => {
      await h.settle();
      expect(stageOf("looping")).toBe("waiting");
    });
  });
});
