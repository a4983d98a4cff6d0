import type { Logger } from "pino";
import { filterRequestSchema } from "../../actors/matchmaking/index.ts";
import type { Endpoint } from "../../actors/runtime/index.ts";
import type { FilterPool } from "./filter-pool.ts";

/**
 * Serves `filters/<name>`: each `filterRequest` a queue tells runs in the pool, and its answer goes back
 * to the queue as `filterVerdict` — always, reject included, so the queue need not wait for its deadline.
 */
export function filterEndpoint(
  pool: Pick<FilterPool, "run">,
  queues: { tell(key: string, message: unknown): void },
  log: Pick<Logger, "warn">,
): Endpoint {
  return {
    tell(key, message) {
      const parsed = filterRequestSchema.safeParse(message);
      if (!parsed.success) {
        log.warn({ key }, "not a filter request; dropped");
        return;
      }
      const { queue, entry, lobby, data } = parsed.data;
      const name = key.slice(key.indexOf("/") + 1);
      void pool.run(name, data).then((accept) => {
        queues.tell(queue, { type: "filterVerdict", entry, lobby, accept });
      });
    },
  };
}
