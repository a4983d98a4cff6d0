import type { Logger } from "pino";
import type { RuntimeEvents } from "../../actors/runtime/index.ts";
import type { FleetNodeHooks, KvStore } from "../../fleet/index.ts";
import { CloseCodes, inKeyHere, type GatewayServer, type SessionRegistry } from "../../gateway/index.ts";
import type { NodeMetrics } from "../admin/index.ts";
import type { NodeConfig } from "../config.ts";
import { startEmbeddedRuntime } from "./embedded-runtime.ts";
import { startFleetRuntime } from "./fleet-runtime.ts";
import type { NodeCapacity } from "./node-capacity.ts";
import { registerKinds } from "./node-kinds.ts";
import type { NodeRuntime } from "./node-runtime.ts";

/** What the runtime reports to and delivers through. */
export interface RuntimeParts {
  readonly outbox: SessionRegistry;
  readonly capacity: NodeCapacity;
  readonly events: RuntimeEvents;
  readonly log: Logger;
  readonly metrics: NodeMetrics;
}

/**
 * What a fleet node needs from this process: the sessions on its gateway, its capacity, its metrics.
 * `gateway` is read when the node is declared dead (the gateway is made after the runtime it fronts).
 */
function fleetHooksOf(
  config: NodeConfig,
  parts: RuntimeParts,
  gateway: () => GatewayServer | undefined,
): FleetNodeHooks {
  const { outbox, metrics } = parts;
  return {
    outbox,
    capacity: parts.capacity.state,
    events: parts.events,
    register: (system) => {
      registerKinds(system, config);
    },
    playersHere: (key) => outbox.connectedFor(key),
    connectedHere: (player) => outbox.ofPlayer(player)?.socket != null,
    inKeyHere: (player, key) => inKeyHere(outbox.ofPlayer(player), key),
    reset: () => {
      outbox.forgetMoves();
      gateway()?.closeSockets(CloseCodes.RESET.code, "RESET");
    },
    moved: (key, url) => {
      outbox.moveAway(key, url);
    },
    fleetEvents: {
      tookOver: (key, sinceDeathMs) => {
        // Wall-clock differences: a clock step could make one negative.
        metrics.tookOver(key, sinceDeathMs === undefined ? undefined : Math.max(0, sinceDeathMs) / 1000);
      },
      migrated: (direction, result) => {
        metrics.migrated(direction, result);
      },
      frozeFor: (key, ms) => {
        metrics.migrationPaused(key, Math.max(0, ms) / 1000);
      },
    },
    draining: () => {
      void outbox.notifyDraining();
    },
    log: parts.log,
  };
}

/** The runtime a configuration asks for: embedded (no NATS) or in a fleet (`--nats`). */
export async function startRuntime(
  config: NodeConfig,
  parts: RuntimeParts,
  gateway: () => GatewayServer | undefined,
  kvView?: (kv: KvStore) => KvStore,
): Promise<NodeRuntime> {
  if (config.nats.length > 0) return startFleetRuntime(config, fleetHooksOf(config, parts, gateway), kvView);
  return startEmbeddedRuntime(
    config,
    { outbox: parts.outbox, node: parts.capacity.state, events: parts.events, log: parts.log },
    kvView,
  );
}
