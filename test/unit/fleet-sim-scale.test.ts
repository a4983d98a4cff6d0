import { describe, expect, it } from "vitest";
import { SimCounters, countedSubject, runScaleSimulation, scaleFigures } from "../../fleet/sim/index.ts";

/**
 * The scale scenario's counts (`foyer bench --scenario sim-scale`): what a fleet delivers per op and per
 * node, counted on the simulated KV and bus under a load that does not depend on the fleet's size.
 */

describe("simulation counters", () => {
  it("count by name, and tell what grew since a snapshot", () => {
    const counters = new SimCounters();
    counters.add("kv.watch.claims");
    counters.add("kv.watch.nodes", 3);
    const before = counters.snapshot();
    counters.add("kv.watch.claims", 2);
    expect(counters.since(before)).toEqual(new Map([["kv.watch.claims", 2]]));
    expect(counters.snapshot().get("kv.watch.nodes")).toBe(3);
  });

  it("count every node's subject of one kind under one name", () => {
    expect(countedSubject("foyer.node.n12.actor")).toBe("foyer.node.*.actor");
    expect(countedSubject("foyer.push")).toBe("foyer.push");
  });
});

describe("scale scenario", () => {
  const small = { lobbies: 10, idleMs: 1_000, loadMs: 4_000, seed: 3 };

  it("with the previous release's whole-bucket watch, every claim write reaches every node", async () => {
    for (const nodes of [2, 4]) {
      const figures = scaleFigures(await runScaleSimulation({ nodes, claimsWatch: true, ...small }));
      const perWrite =
        (figures.perOp["claims watch deliveries"] ?? Number.NaN) /
        (figures.perOp["claim writes"] ?? Number.NaN);
      expect(perWrite).toBeCloseTo(nodes, 0);
    }
  });

  it("counts what grows with the fleet and what does not, under one load", async () => {
    const two = scaleFigures(await runScaleSimulation({ nodes: 2, ...small }));
    const four = scaleFigures(await runScaleSimulation({ nodes: 4, ...small }));
    for (const figures of [two, four]) expect(figures.ops).toBeGreaterThan(40);
    const perOp = (figures: typeof two, row: string): number => figures.perOp[row] ?? Number.NaN;
    // The load is the same at both sizes: one claim write per create and per close (2 of 5 steps), a
    // snapshot write per step; neither grows with the fleet.
    for (const row of [
      "claim writes",
      "snapshot writes",
      // A frame for a player a node does not know yet is broadcast: once per new lobby here.
      "push relay broadcasts (publishes)",
    ]) {
      expect(perOp(two, row)).toBeGreaterThan(0.1);
      expect(Math.abs(perOp(four, row) - perOp(two, row))).toBeLessThan(0.05);
    }
    // No node watches the whole claims bucket: a claim write reaches nobody, and what routing reads (a
    // miss, a takeover waited for) and what the claim index writes do not grow with the fleet either.
    expect(perOp(four, "claims watch deliveries")).toBe(perOp(two, "claims watch deliveries"));
    expect(Math.abs(perOp(four, "claim index writes") - perOp(two, "claim index writes"))).toBeLessThan(0.05);
    expect(perOp(two, "claim index writes")).toBeGreaterThan(0.1);
    // A miss is read once by each gateway that forwards for the lobby: no more reads than forwarded asks,
    // which the lobby's players bound, not the fleet.
    for (const figures of [two, four])
      expect(perOp(figures, "claim reads (cache misses)")).toBeLessThanOrEqual(
        perOp(figures, "requests to an owner (forwarded asks)") + 0.05,
      );
    // Later frames go to the gateways that hold the lobby's players: at most three of them (the fourth
    // player sits on the owner), for three of each lobby's five steps, at any fleet size.
    for (const figures of [two, four])
      expect(perOp(figures, "push relay sends to one gateway (requests)")).toBeLessThanOrEqual(0.6 * 3);
    expect(perOp(four, "push relay sends to one gateway (requests)")).toBeGreaterThan(0.3);
    // Heartbeats: one write per node and second, heard by every node.
    expect(two.perNodeSecond["heartbeat writes"]).toBe(1);
    expect(four.perNodeSecond["heartbeat writes"]).toBe(1);
    expect(two.perNodeSecond["heartbeats heard (nodes watch)"]).toBe(2);
    expect(four.perNodeSecond["heartbeats heard (nodes watch)"]).toBe(4);
  });

  it("reads no more heartbeat records per node and second at four nodes than at two", async () => {
    // The watch delivers every peer's heartbeat; a round reads the records only when the watch has not
    // delivered the round's own heartbeat. Reads per node that grew with the fleet (a get of every peer
    // each round) would make the nodes stream's reads grow as N².
    const two = scaleFigures(await runScaleSimulation({ nodes: 2, ...small }));
    const four = scaleFigures(await runScaleSimulation({ nodes: 4, ...small }));
    for (const row of ["heartbeat reads (gets)", "heartbeat listings (keys)"]) {
      expect(two.perNodeSecond[row], row).toBeDefined();
      expect(four.perNodeSecond[row], row).toBe(two.perNodeSecond[row]);
    }
    // The guard costs nothing in a healthy fleet: the watch keeps up, so no round reads.
    expect(four.perNodeSecond["heartbeat reads (gets)"]).toBe(0);
  });
});
