// The cold-join loop Foyer's benches of this folder share (foyer-join.ts on one node, foyer-join-fleet.ts on
// a fleet): C clients at once, each looping "new SDK client → connect → join(code)", timed until the join
// is answered, then leave and close (not timed); first untimed for the warm-up, then timed for the seconds.
import type { FoyerClient } from "../../../gateway/index.ts";

export interface ColdJoinLoop {
  readonly concurrency: number;
  /** The lobby client `w` joins (at most 6 clients a lobby, so a seat is always free). */
  readonly codeOf: (w: number) => string;
  /** A new SDK client for client `w`, not connected yet. */
  readonly clientOf: (w: number) => FoyerClient;
  readonly warmUpSeconds: number;
  readonly seconds: number;
  /** Called just before the timed joins start, and just after they end (CPU readings). */
  readonly onTimedStart?: () => void;
  readonly onTimedEnd?: () => void;
}

export interface ColdJoinRun {
  readonly latencies: number[];
  readonly errors: Record<string, number>;
  /** performance.now() at the start of the timed joins. */
  readonly started: number;
  readonly elapsedS: number;
}

export async function runColdJoins(options: ColdJoinLoop): Promise<ColdJoinRun> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const loop = async (w: number, deadline: number, timed: boolean): Promise<void> => {
    const code = options.codeOf(w);
    do {
      const t0 = performance.now();
      const client = options.clientOf(w);
      try {
        await client.connect();
        await client.join(code);
        if (timed) latencies.push(performance.now() - t0);
        await client.leave();
      } catch (error) {
        const key = String((error as Error)?.message ?? error).slice(0, 80);
        errors[key] = (errors[key] ?? 0) + 1;
      } finally {
        client.close();
      }
    } while (performance.now() < deadline);
  };
  const all = (deadline: number, timed: boolean): Promise<void[]> =>
    Promise.all(Array.from({ length: options.concurrency }, (_, w) => loop(w, deadline, timed)));
  await all(performance.now() + options.warmUpSeconds * 1000, false);
  options.onTimedStart?.();
  const started = performance.now();
  await all(started + options.seconds * 1000, true);
  const elapsedS = (performance.now() - started) / 1000;
  options.onTimedEnd?.();
  return { latencies, errors, started, elapsedS };
}
