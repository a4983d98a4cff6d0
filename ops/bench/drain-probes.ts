import { parentPort, workerData } from "node:worker_threads";
import { drainClient } from "./drain-client.ts";
import type { FoyerClient } from "../../gateway/client/index.ts";

/**
 * The drain bench's probes, on a thread of their own (`workerData`): the members whose ready toggles
 * measure the pause. On the bench's main thread they shared one event loop with the thousands of
 * members that make the load, and every burst of frames to those (`serverDraining` to all of them at
 * once, a lobby's members reconnecting) stalled the probes' answers for 100–300 ms: the load generator's
 * pause, not the node's. A player's client never shares a loop with 4,000 others.
 */
export interface ProbeWork {
  readonly urls: readonly string[];
  /** One per probe: its player's token and the lobby it joins. */
  readonly probes: readonly { readonly token: string; readonly code: string }[];
  /**
   * Control probes: each creates a lobby of its own on a node that is not drained (`url`, its only
   * address) and toggles like the probes. Their worst requests are what the drain's load alone does to a
   * lobby that does not move: the part of a probe's pause that is not its own lobby's move.
   */
  readonly controls: readonly { readonly token: string; readonly url: string }[];
  /** A probe's pause between two ready toggles. */
  readonly gapMs: number;
}

/** From the bench to its probes. */
export type ProbeCommand = { readonly type: "drain" } | { readonly type: "stop" };

/** From the probes to the bench. */
export type ProbeReport =
  | { readonly type: "joined" }
  | {
      readonly type: "done";
      /** Ready toggles before the drain, ms. */
      readonly before: number[];
      /** Ready toggles started during the drain, ms. */
      readonly during: number[];
      /** Each probe's slowest toggle during the drain (0: none). */
      readonly worst: number[];
      /**
       * Each probe's slowest toggle during its lobby's move: in flight at some moment from the `moved`
       * its client heard to the new node's welcome (0: none was, or the lobby did not move).
       */
      readonly movePause: number[];
      /** Probes whose client heard its lobby move. */
      readonly probesMoved: number;
      /** The same for each control probe. */
      readonly controlWorst: number[];
      readonly errors: number;
    }
  | { readonly type: "failed"; readonly message: string };

async function run(work: ProbeWork, port: NonNullable<typeof parentPort>): Promise<void> {
  const clients: FoyerClient[] = [];
  const connect = async (urls: readonly string[], token: string): Promise<FoyerClient> => {
    const client = drainClient(urls, token);
    clients.push(client);
    await client.connect();
    return client;
  };
  try {
    for (const probe of work.probes) await (await connect(work.urls, probe.token)).join(probe.code);
    // A new lobby is placed on the node its creator is connected to (not draining, not full).
    for (const control of work.controls) await (await connect([control.url], control.token)).create();
    const probeCount = work.probes.length;
    const phase = { draining: false, stop: false };
    port.on("message", (command: ProbeCommand) => {
      if (command.type === "drain") phase.draining = true;
      else phase.stop = true;
    });
    port.postMessage({ type: "joined" } satisfies ProbeReport);
    const before: number[] = [];
    const during: number[] = [];
    const worst = new Array<number>(clients.length).fill(0);
    const movePause = new Array<number>(probeCount).fill(0);
    let probesMoved = 0;
    let errors = 0;
    await Promise.all(
      clients.map(async (client, p) => {
        let ready = false;
        // Its lobby's move, as its client saw it: from the `moved` frame to the new node's welcome.
        const move = { from: Infinity, to: Infinity };
        const toggles: { t0: number; t1: number }[] = [];
        client.on("moving", () => {
          if (move.from === Infinity) move.from = performance.now();
        });
        client.on("connected", () => {
          if (move.from !== Infinity && move.to === Infinity) move.to = performance.now();
        });
        while (!phase.stop) {
          const draining = phase.draining;
          const t0 = performance.now();
          try {
            await client.ready(!ready);
            ready = !ready;
          } catch {
            errors++;
          }
          const t1 = performance.now();
          const ms = t1 - t0;
          if (draining) worst[p] = Math.max(worst[p] ?? 0, ms);
          if (draining && p < probeCount) toggles.push({ t0, t1 });
          // Of a control, only its worst is reported.
          if (p < probeCount) (draining ? during : before).push(ms);
          await new Promise((resolve) => setTimeout(resolve, work.gapMs));
        }
        if (p < probeCount && move.from !== Infinity) probesMoved++;
        for (const { t0, t1 } of toggles) {
          if (t0 <= move.to && t1 >= move.from) movePause[p] = Math.max(movePause[p] ?? 0, t1 - t0);
        }
      }),
    );
    port.postMessage({
      type: "done",
      before,
      during,
      worst: worst.slice(0, probeCount),
      movePause,
      probesMoved,
      controlWorst: worst.slice(probeCount),
      errors,
    } satisfies ProbeReport);
  } catch (error) {
    port.postMessage({ type: "failed", message: String(error) } satisfies ProbeReport);
  } finally {
    for (const client of clients) client.close();
  }
}

if (parentPort !== null) void run(workerData as ProbeWork, parentPort);
