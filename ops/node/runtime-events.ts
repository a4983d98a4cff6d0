import type { Logger } from "pino";
import { queueKey, waitingPlayers, type QueueState } from "../../actors/matchmaking/index.ts";
import type { RuntimeEvents } from "../../actors/runtime/index.ts";
import type { NodeMetrics } from "../admin/index.ts";
import type { NodeCapacity } from "./node-capacity.ts";

/**
 * Players waiting in each lobby type's queue, read from the queue actors live on this node (a queue's
 * state is its kind's, `QueueState`); 0 for a type whose queue is not live here.
 */
export function queueDepthsOf(
  lobbyTypes: readonly string[],
  peek: (key: string) => unknown,
): Map<string, number> {
  const depths = new Map<string, number>();
  for (const lobbyType of lobbyTypes) {
    const state = peek(queueKey(lobbyType)) as QueueState | undefined;
    depths.set(lobbyType, state === undefined ? 0 : waitingPlayers(state));
  }
  return depths;
}

/**
 * The runtime's events as log lines and metrics, and the room and lobby counts that decide whether a start
 * may open a room and an embedded node a lobby.
 */
export function runtimeEventsOf(log: Logger, capacity: NodeCapacity, metrics: NodeMetrics): RuntimeEvents {
  const counted = metrics.runtimeEvents;
  return {
    handlerFailed: (key, err) => {
      log.error({ key, err }, "handler failed; last good state kept");
    },
    persistFailed: (key, err) => {
      log.warn({ key, err }, "snapshot write failed");
    },
    deadLetter: (key) => {
      log.debug({ key }, "message to a key with no actor");
    },
    created: (key) => {
      if (key.startsWith("room/")) capacity.rooms++;
      if (key.startsWith("lobby/")) capacity.lobbies++;
      counted.created(key);
    },
    stopped: (key) => {
      if (key.startsWith("room/")) capacity.rooms--;
      if (key.startsWith("lobby/")) capacity.lobbies--;
      counted.stopped(key);
    },
    persisted: counted.persisted,
    publishFailed: (key, err) => {
      log.warn({ key, err }, "event not published");
    },
  };
}
