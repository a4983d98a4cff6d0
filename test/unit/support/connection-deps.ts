import pino from "pino";
import type { ConnectionDeps } from "../../../gateway/connection.ts";

/**
 * What a Connection under test is handed: node `n1`, a socket's default limits, a silent logger and the
 * wall clock, plus the parts the test gives (`extra`). The rest of ConnectionDeps is left out: a test
 * gives what its path reaches.
 */
export function connectionDeps(extra: Record<string, unknown> = {}): ConnectionDeps {
  return {
    nodeId: "n1",
    limits: {
      maxFrameBytes: 65_536,
      maxBufferedBytes: 1 << 20,
      ratePerSecond: 50,
      rateBurst: 100,
      helloTimeoutMs: 10_000,
    },
    logger: pino({ level: "silent" }),
    now: () => Date.now(),
    stopping: () => false,
    ...extra,
  } as unknown as ConnectionDeps;
}
