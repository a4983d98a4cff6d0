import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * The dashboard and the player demo in headless Chromium (Debian's `chromium`, driven by playwright-core),
 * on a fleet of three node processes: the dashboard's numbers follow the lobbies of a drained node to its
 * peers, and two demo pages create and join one lobby, ready up and start a room.
 */

const chromiumPath = "/usr/bin/chromium";
const missing = !existsSync(chromiumPath);
/** The README's picture is rewritten only on request, so a test run leaves the tree clean. */
const screenshot =
  process.env.FOYER_UPDATE_SCREENSHOT === "1"
    ? fileURLToPath(new URL("../../docs/dashboard.png", import.meta.url))
    : join(tmpdir(), `foyer-dashboard-${process.pid}.png`);
if (missing) {
  console.warn(`dashboard e2e skipped: ${chromiumPath} is missing (apt-get install -y chromium)`);
}
const lobbyCount = 24;
/** How long a page may take to show what the fleet already did (it polls every second). */
const pageWaitMs = 30_000;

let browser: Browser | undefined;
let dashboard: Page | undefined;

/** The text of the first element matching `selector`, once it matches `expected`. */
async function waitText(page: Page, selector: string, expected: (text: string) => boolean): Promise<string> {
  let text = "";
  await eventually(async () => {
    text = (await page.locator(selector).first().textContent({ timeout: 1_000 })) ?? "";
    expect(expected(text), `${selector} reads "${text}"`).toBe(true);
  }, pageWaitMs);
  return text;
}

/** The lobby count the dashboard shows for a node. */
async function lobbiesShown(page: Page, node: string): Promise<number> {
  return Number(await page.locator(`tr[data-node="${node}"] td.lobbies`).textContent({ timeout: 5_000 }));
}

describe.skipIf(missing)(
  `dashboard and demo in headless Chromium${missing ? ` (skipped: ${chromiumPath} is missing; apt-get install -y chromium)` : ""}`,
  () => {
    const fleet = useProcessFleet({
      ids: ["n1", "n2", "n3"],
      natsServers: 1,
      beforeStop: async () => {
        await browser?.close();
      },
    });
    const { nodes, urls, admins } = fleet;
    const player = (id: string, first: string): Promise<FoyerClient> => fleet.player(id, first);

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
    }, 120_000);

    it("shows the lobbies of a draining node moving to its peers", async () => {
      const lobbies = await Promise.all(
        Array.from({ length: lobbyCount }, async (_, i) => {
          const host = await player(`dash-host-${i}`, urls[0]!);
          const guest = await player(`dash-guest-${i}`, urls[0]!);
          const { code } = await host.create();
          await guest.join(code);
          return { host, guest, code };
        }),
      );
      // One lobby plays a room: the drain waits for it, so the page must show n1 draining.
      const playing = lobbies.at(-1)!;
      await Promise.all([playing.host.ready(true), playing.guest.ready(true)]);
      await playing.host.start("duel");

      // The dashboard of n2: it outlives n1's drain, and the README's screenshot is its picture.
      const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
      dashboard = page;
      await page.goto(new URL("/dashboard", admins[1]).href);
      await waitText(page, "#served-by", (t) => t === "n2");
      await waitText(page, 'tr[data-node="n1"] td.lobbies', (t) => t === String(lobbyCount));
      expect(await lobbiesShown(page, "n2")).toBe(0);
      expect(await lobbiesShown(page, "n3")).toBe(0);
      await waitText(page, "#nodes-live", (t) => t === "3");
      await waitText(page, "#total-lobbies", (t) => t === String(lobbyCount));

      // Refused (409) only while n1 sees no live peer — a heartbeat late on a loaded machine: ask again.
      let drain = await fetch(new URL("/drain", admins[0]), { method: "POST" });
      for (let i = 0; drain.status === 409 && i < 50; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        drain = await fetch(new URL("/drain", admins[0]), { method: "POST" });
      }
      expect(drain.status).toBe(202);

      // Everything but the playing lobby moves; the drain waits for its room.
      await waitText(page, 'tr[data-node="n1"] td.lobbies', (t) => t === "1");
      expect(await page.locator('tr[data-node="n1"]').getAttribute("data-state")).toBe("draining");
      await waitText(page, "#nodes-draining", (t) => t === "1");
      await eventually(async () => {
        expect((await lobbiesShown(page, "n2")) + (await lobbiesShown(page, "n3"))).toBe(lobbyCount - 1);
      }, pageWaitMs);
      // Keys, not lobbies: the drain moves players' actors too; the lobby and its room wait.
      const running = await waitText(page, '[data-drain="n1"]', (t) => t.includes("waiting for their room"));
      const [, moved, total] = /running: moved (\d+) of (\d+) keys, 2 left, 2 waiting for their room/.exec(
        running,
      )!;
      expect(Number(moved)).toBe(Number(total) - 2);
      expect(Number(total)).toBeGreaterThan(lobbyCount);

      // The room ends: the last lobby moves, n1 empties and exits, and the page says it drained.
      await playing.host.finish();
      await waitText(page, 'tr[data-node="n1"] td.lobbies', (t) => t === "0");
      await eventually(async () => {
        expect((await lobbiesShown(page, "n2")) + (await lobbiesShown(page, "n3"))).toBe(lobbyCount);
      }, pageWaitMs);
      expect(await nodes[0]!.exited).toBe(0);
      await eventually(async () => {
        expect(await page.locator('tr[data-node="n1"]').getAttribute("data-state")).toBe("drained");
      }, pageWaitMs);
      await waitText(page, "#nodes-live", (t) => t === "2");

      // A moved lobby's detail: its members and host, and the owners the page saw, n1 first.
      const { code, host } = lobbies[0]!;
      await page.locator(`button[data-key="lobby/${code}"]`).click();
      const detail = await waitText(page, "#lobby-detail", (t) => t.includes(`lobby/${code}`));
      expect(detail).toContain(`host: ${host.player!}`);
      expect(await page.locator("#lobby-detail tr").count()).toBe(3); // header + host + guest
      await waitText(page, "#owner-history", (t) => /n1 \(epoch \d+\) → n[23] \(epoch \d+\)/.test(t));
    }, 180_000);

    it("lets two demo pages create and join one lobby, ready up and start", async () => {
      const [alice, bob] = await Promise.all(
        ["Alice", "Bob"].map(async (name) => {
          const page = await browser!.newPage();
          await page.goto(new URL("/demo", admins[2]).href);
          await page.fill("#name", name);
          await page.click("#connect");
          await waitText(page, "#status", (t) => t.startsWith("connected"));
          return page;
        }),
      );
      await alice!.click("#create");
      const code = await waitText(alice!, "#lobby-code", (t) => t.length > 0);
      await bob!.fill("#code", code);
      await bob!.click("#join");
      for (const page of [alice!, bob!]) {
        await eventually(async () => expect(await page.locator("#members li").count()).toBe(2), pageWaitMs);
      }
      await alice!.click("#ready");
      await bob!.click("#ready");
      for (const page of [alice!, bob!]) {
        await eventually(
          async () => expect(await page.locator('#members li[data-ready="true"]').count()).toBe(2),
          pageWaitMs,
        );
      }
      await alice!.click("#start");
      for (const page of [alice!, bob!]) await waitText(page, "#room", (t) => t.includes("duel"));

      // n2's dashboard shows the demo's lobby (on n3) with both players.
      const page = dashboard!;
      await page.locator(`button[data-key="lobby/${code}"]`).click({ timeout: pageWaitMs });
      const detail = await waitText(
        page,
        "#lobby-detail",
        (t) => t.includes("dev-bob") && !t.includes("room: none"),
      );
      expect(detail).toContain("host: dev-alice");
      expect(await page.locator("#lobby-detail tr").count()).toBe(3);
      await Promise.all([alice!.close(), bob!.close()]);
    }, 120_000);

    it("counts the failover of a killed node's lobbies as it happens", async () => {
      const page = dashboard!;
      expect(await page.locator("#failover-count").textContent()).toBe("0");
      const n3Lobbies = await lobbiesShown(page, "n3");
      expect(n3Lobbies).toBeGreaterThan(0);
      nodes[2]!.child.kill("SIGKILL");
      await eventually(async () => {
        expect(await page.locator('tr[data-node="n3"]').getAttribute("data-state")).toBe("dead");
      }, pageWaitMs);
      await waitText(page, 'tr[data-node="n2"] td.lobbies', (t) => t === String(lobbyCount + 1));
      // n2 took over n3's lobbies (and its players' and rooms' keys): at least one takeover per lobby.
      const count = await waitText(page, "#failover-count", (t) => Number(t) >= n3Lobbies);
      expect(Number(count)).toBeGreaterThanOrEqual(n3Lobbies);
      // The list shows the latest takeovers only: lobbies go first (their members ask for them), so by now
      // the latest may all be players' records. Some key of n3's is listed as taken by n2.
      await waitText(page, "#failovers", (t) => /(lobby|player)\/\S+: n3 → n2/.test(t));
      // The demo's lobby, still selected, now lives on n2, and the page saw it move.
      await waitText(page, "#owner-history", (t) => /n3 \(epoch \d+\) → n2 \(epoch \d+\)/.test(t));
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(readFileSync(screenshot).subarray(1, 4).toString("latin1")).toBe("PNG");
    }, 120_000);
  },
);
