import type { FuzzIntel } from "./fuzz-frames.ts";

/** Where tokens come from: signed with the started node's key, or a running node's dev endpoint. */
export type TokenSource = (player: string) => Promise<string>;

/** What every fuzz socket of a run shares: where to connect, the frames left, and the tallies. */
export interface FuzzRunState {
  readonly url: string;
  readonly maxFrameBytes: number;
  readonly answerTimeoutMs: number;
  readonly intel: FuzzIntel;
  readonly token: TokenSource;
  readonly badToken: string;
  remaining: number;
  sent: number;
  /** Set when the node is gone: the fuzz sockets stop. */
  aborted: boolean;
  connections: number;
  connectFailures: number;
  unanswered: number;
  hijacked: number;
  stray: number;
  readonly closes: Map<string, number>;
  readonly errorsByCode: Map<string, number>;
  readonly categories: Map<string, number>;
  readonly samples: string[];
}

/** Adds to one key of a tally. */
export function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** A plain wait (the fuzzer paces itself against a real node). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
