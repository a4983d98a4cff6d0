import { z } from "zod";

/** The keys of queues, matched lobbies and filters, in one place so every kind builds them alike. */

/** A lobby type's queue: `queue/<type>`. */
export function queueKey(lobbyType: string): string {
  return `queue/${lobbyType}`;
}

/** The lobby type of a queue key, or undefined for another key. */
export function lobbyTypeOfQueueKey(key: string): string | undefined {
  return /^queue\/([A-Za-z0-9_.-]{1,64})$/.exec(key)?.[1];
}

/** The `n`-th matched lobby of a type: `mmlobby/<type>/<n>`; `n` comes from the queue's counter. */
export function matchedLobbyKey(lobbyType: string, n: number): string {
  return `mmlobby/${lobbyType}/${n}`;
}

/** A matched lobby's key, as lobbies report it to their queue. */
export const matchedLobbyKeySchema = z.string().regex(/^mmlobby\/[A-Za-z0-9_.-]{1,64}\/[1-9][0-9]{0,15}$/);

/** Where the queue sends a filter request: `filters/<name>` (served by the worker pool, a later part). */
export function filterKey(name: string): string {
  return `filters/${name}`;
}
