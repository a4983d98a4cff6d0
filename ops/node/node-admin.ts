import type { Logger } from "pino";
import type { LobbyOptions } from "../../actors/lobby/index.ts";
import type { ActorSystem } from "../../actors/runtime/index.ts";
import type { LobbyListings } from "../../gateway/index.ts";
import { cryptoRandom, type FleetNode } from "../../fleet/index.ts";
import { startAdmin, type FleetSource, type NodeMetrics, type RunningAdmin } from "../admin/index.ts";
import type { NodeConfig } from "../config.ts";
import { FilterPool, filterEndpoint } from "../filters/index.ts";
import { isDevMode } from "./dev-mode.ts";
import { isLoopbackHost } from "./loopback-host.ts";
import type { NodeCapacity } from "./node-capacity.ts";

/** An embedded node has no peers to move its lobbies to. */
export const refusedDrain = {
  accepted: false,
  message: "an embedded node has no peers to move its lobbies to: stop it instead (its lobbies end with it)",
};

/** What a node's admin API shows and drives: the runtime, its fleet node if any, and where it listens. */
export interface NodeAdminParts {
  readonly system: ActorSystem;
  readonly fleet?: FleetNode | undefined;
  readonly capacity: NodeCapacity;
  readonly metrics: NodeMetrics;
  readonly lobby: LobbyOptions;
  /** The index of the fleet's public lobbies (the server API's lobby queries). */
  readonly listings?: LobbyListings;
  readonly url: string;
  readonly httpUrl: string;
}

/** What the admin API's fleet view reads, on a node in a fleet. */
function fleetSourceOf(config: NodeConfig, system: ActorSystem, fleet: FleetNode): FleetSource {
  return {
    node: config.nodeId,
    load: () => system.liveCount,
    peerViews: () => fleet.peerViews(),
    ownedKeys: () => fleet.ownedKeys(),
    peek: (key) => system.peek(key),
    failovers: () => fleet.failovers(),
  };
}

/** Starts the node's admin API: `/metrics`, `/status`, `/drain`, the fleet view, the server API. */
export function startNodeAdmin(
  config: NodeConfig,
  logger: Logger,
  parts: NodeAdminParts,
): Promise<RunningAdmin> {
  const { system, fleet } = parts;
  return startAdmin(
    config,
    {
      metrics: parts.metrics,
      node: fleet?.state ?? parts.capacity.state,
      url: parts.url,
      drain: () => Promise.resolve(fleet?.drain() ?? refusedDrain),
      ...(fleet
        ? { drainProgress: () => fleet.drainProgress(), fleet: fleetSourceOf(config, system, fleet) }
        : {}),
      gameHttpUrl: parts.httpUrl,
      api: {
        system,
        lobby: parts.lobby,
        random: cryptoRandom(),
        ...(parts.listings ? { listings: parts.listings } : {}),
      },
      // docs/server-api.md "Authentication": no token is needed only on a dev node's loopback admin port.
      apiWithoutToken: isDevMode(config) && isLoopbackHost(config.adminHost),
    },
    logger.child({ component: "admin", node: config.nodeId }),
  );
}

/** The matchmaking filter pool, serving `filters/<name>`, when the configuration names a filters module. */
export function startFilters(
  config: NodeConfig,
  system: ActorSystem,
  logger: Logger,
): FilterPool | undefined {
  if (config.filtersModule === undefined) return undefined;
  const log = logger.child({ component: "filters", node: config.nodeId });
  const pool = new FilterPool({ module: config.filtersModule, log });
  system.mount("filters", filterEndpoint(pool, system, log));
  return pool;
}
