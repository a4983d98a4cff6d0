import { describe, expect, it } from "vitest";
import { entryIntentMs } from "../../actors/player/index.ts";
import { eventually } from "../support/node.ts";
import { gatewayOverActors, type Faults } from "./support/gateway-faults.ts";

/**
 * How a gateway reports a failed entry to the player's registry: a join refused for good (the lobby is
 * gone) whose first report does not reach the registry is reported again, so its intent is not left to
 * expire — an expired intent is taken as made, and would take the player out of the lobby it is in.
 */

describe("the report of a failed entry", () => {
  it("reaches a registry that could not take it at first, and the player stays in its lobby", async () => {
    const faults: Faults = {};
    const { h, create, members, registry, requests, session } = gatewayOverActors(faults);
    const created = await create(1);
    if (!created.ok) throw new Error(`create refused ${created.code}`);
    const key = `lobby/${(created.value as { code: string }).code}`;
    // The registry's owner is being taken over when the first report comes: it does not arrive.
    const reports = { refused: 0, delivered: 0 };
    const failed = (to: string, message: { type: string }): boolean =>
      to === "player/alice" && message.type === "enterFailed";
    faults.refuseAsk = (to, message) => failed(to, message) && reports.refused++ === 0;
    faults.dropTell = (to, message) => failed(to, message) && reports.refused++ === 0;
    faults.loseAnswer = (to, message) => {
      if (failed(to, message)) reports.delivered += 1;
      return false;
    };
    const join = await requests.handle(session, { type: "join", id: 2, code: "ZZZZZZ" });
    expect(join).toMatchObject({ ok: false, code: "NOT_FOUND" });
    await eventually(() => expect(reports.delivered).toBe(1), 3_000).catch(() => undefined);
    await h.settle();
    await h.clock.advance(entryIntentMs + 5_000);
    await h.settle();
    expect(members(key)).toEqual(["alice"]);
    expect(await registry()).toBe(key);
    expect(await requests.handle(session, { type: "ready", id: 3, ready: true })).toMatchObject({ ok: true });
  });
});
