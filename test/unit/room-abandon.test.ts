import { describe, expect, it } from "vitest";
import { roomKind, roomLimits } from "../../actors/room/index.ts";
import { createHarness } from "../../actors/runtime/index.ts";

async function directRoom() {
  const h = createHarness({ kinds: [{ kind: roomKind() as never }] });
  await h.system.spawn("room/ABCDEF", {
    code: "ABCDEF",
    direct: true,
    host: { id: "host", name: "Host" },
    seats: 2,
    mode: "duel",
  });
  return h;
}

describe("an abandoned room", () => {
  it("closes when none of its humans has been connected for abandonAfterMs", async () => {
    const h = await directRoom();
    await h.system.ask("room/ABCDEF", { type: "connection", player: "host", connected: false });
    await h.clock.advance(roomLimits.abandonAfterMs - 1);
    expect(h.store.peek("room/ABCDEF")).toBeDefined();
    await h.clock.advance(1);
    expect(h.store.peek("room/ABCDEF")).toBeUndefined();
  });

  it("stays when a human comes back in time", async () => {
    const h = await directRoom();
    await h.system.ask("room/ABCDEF", { type: "connection", player: "host", connected: false });
    await h.clock.advance(roomLimits.abandonAfterMs / 2);
    await h.system.ask("room/ABCDEF", { type: "connection", player: "host", connected: true });
    await h.clock.advance(roomLimits.abandonAfterMs * 2);
    expect(h.store.peek("room/ABCDEF")).toBeDefined();
  });
});
