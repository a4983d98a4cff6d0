import type { Logger } from "pino";
import type { ActorSystem } from "../actors/runtime/index.ts";
import type { PlayerTokenVerifier, TokenKey } from "./auth/index.ts";
import type { RequestFrame } from "./protocol/client-frames.ts";
import type { RequestRouter } from "./requests/index.ts";
import type { SessionRegistry } from "./sessions/index.ts";

/** The limits and secrets a connection is held to. */
export interface ConnectionLimits {
  readonly maxFrameBytes: number;
  readonly maxBufferedBytes: number;
  readonly ratePerSecond: number;
  readonly rateBurst: number;
  readonly helloTimeoutMs: number;
}

/** What every connection of a gateway shares. */
export interface ConnectionDeps {
  readonly nodeId: string;
  /** The node's `--region` (SPEC §3 ping), told to clients in `welcome`; empty: none. */
  readonly region?: string;
  /**
   * One URL per region of the fleet (SPEC §3 ping), told to clients in `welcome.regions` so the SDK can
   * measure each; absent (embedded): only the node's own region is known.
   */
  readonly regions?: () => readonly { readonly region: string; readonly url: string }[];
  readonly system: ActorSystem;
  readonly requests: RequestRouter;
  readonly sessions: SessionRegistry;
  readonly tokenKeys: readonly TokenKey[];
  /** Checks hello tokens (`tokenKeys` and a provider's key set); absent: `tokenKeys` alone. */
  readonly tokenVerifier?: PlayerTokenVerifier;
  readonly sessionSecret: string;
  readonly limits: ConnectionLimits;
  /**
   * The newest protocol version this node speaks (default PROTOCOL_VERSION). One more than that simulates
   * the next release in a rolling deploy (`--protocol-bump 1`): it still accepts the oldest one.
   */
  readonly protocol?: number;
  readonly logger: Logger;
  readonly now: () => number;
  /** True while the node shuts down: sockets it closes cost nobody a seat. */
  readonly stopping: () => boolean;
  /**
   * Called once per refused frame (by error code) and per socket the node closes (`close:<reason>`;
   * `close:HEARTBEAT` for a socket dropped because it stopped answering pings).
   */
  readonly onRefused?: (code: string) => void;
  /**
   * Called once per request frame answered: its type, `ok` or the error code, and the seconds from its
   * arrival to its answer (a monotonic clock: the node's metrics, not the protocol).
   */
  readonly onAnswered?: (op: RequestFrame["type"], outcome: string, seconds: number) => void;
}
