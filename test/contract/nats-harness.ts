import { afterAll, beforeAll } from "vitest";
import { NatsBus, NatsKvStore, connectNats } from "../../fleet/index.ts";
import type { Bus } from "../../fleet/index.ts";
import { type NatsLauncher, startNats } from "../../ops/nats/index.ts";
import { withInterestHandshake } from "./interest-handshake.ts";

/** Handler throws are what one contract test does on purpose; this sink keeps them out of the run. */
export const ignoreHandlerErrors = (): void => undefined;

/** Real nats-servers for the tests of one describe block, and connections to them. */
export interface NatsHarness {
  /** The running servers (throws before beforeAll has run). */
  readonly nats: () => NatsLauncher;
  /** A store with its own connection to server `server` (default: the next one, round robin). */
  readonly openStore: (server?: number) => Promise<NatsKvStore>;
  /** One bus per server (three on one server): different servers of a cluster, with the handshake. */
  readonly openBuses: () => Promise<Bus[]>;
}

/**
 * Starts `servers` nats-servers (a JetStream cluster when more than one; a nats-server >= 2.10 is
 * fetched first when missing) in beforeAll and always stops them in afterAll. Call inside a describe.
 */
export function useNats(servers: number): NatsHarness {
  let launcher: NatsLauncher | undefined;
  let next = 0;
  beforeAll(async () => {
    launcher = await startNats({ servers, monitoring: servers > 1 });
  }, 120_000);
  afterAll(async () => {
    await launcher?.stop();
  });

  const nats = (): NatsLauncher => {
    if (launcher === undefined) throw new Error("the nats-servers are not running");
    return launcher;
  };

  /** A connection that starts on server `i` and may fail over to the others. */
  const connectTo = (i: number) => {
    const urls = nats().urls;
    const first = urls[i % urls.length]!;
    return connectNats({
      servers: [first, ...urls.filter((url) => url !== first)],
      waitOnFirstConnect: false,
      natsOptions: { noRandomize: true },
    });
  };

  return {
    nats,
    openStore: async (server) => {
      const i = server ?? next++;
      return new NatsKvStore(await connectTo(i), {
        replicas: servers,
        ownsConnection: true,
        onHandlerError: ignoreHandlerErrors,
      });
    },
    openBuses: async () => {
      const buses = await Promise.all(
        [0, 1, 2].map(
          async (i) =>
            new NatsBus(await connectTo(i), { ownsConnection: true, onHandlerError: ignoreHandlerErrors }),
        ),
      );
      return servers > 1 ? withInterestHandshake(buses) : buses;
    },
  };
}
