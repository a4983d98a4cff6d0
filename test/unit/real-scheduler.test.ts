import { describe, expect, it } from "vitest";
import { realScheduler } from "../../fleet/index.ts";

/**
 * A deadline that has already passed fires soon, never inside `at`: the runtime arms a room's next turn
 * after writing a batch, and under load that deadline may be past; firing at once ran the callback
 * before `at` had returned its cancel function, and the room's clock stopped for good.
 */
describe("realScheduler", () => {
  it("fires a past deadline after `at` returned, and not at all once cancelled", async () => {
    const scheduler = realScheduler();
    const fired: string[] = [];
    let returned = false;
    scheduler.at(scheduler.now() - 1_000, () => {
      fired.push(returned ? "after at" : "inside at");
    });
    returned = true;
    expect(fired).toEqual([]);
    const cancelled = scheduler.at(scheduler.now() - 1_000, () => fired.push("cancelled"));
    cancelled();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(fired).toEqual(["after at"]);
  });
});
