import type { OpRecord } from "./chaos-journal.ts";

/** What a bot's acknowledged requests say about it at the end: in a lobby (with its ready flag), out, or unknown. */
export type Expectation =
  | {
      readonly kind: "in";
      readonly code: string;
      /** null when a ready request's outcome is unknown. */
      readonly ready: boolean | null;
      /** The acknowledged create or join that put it there. */
      readonly by: OpRecord;
    }
  | { readonly kind: "out"; readonly by: OpRecord | null }
  | { readonly kind: "unknown"; readonly by: OpRecord };

/**
 * Replays one bot's requests (one at a time, so in send order) into what its acknowledgements promise.
 * A refused request changed nothing; an unknown one (timed out) may have, so it leaves the bot unknown until
 * an acknowledged create, join or leave settles it again.
 */
export function expectationOf(ops: readonly OpRecord[]): Expectation {
  let state = { kind: "out", by: null } as Expectation;
  // Lobbies the bot was banned from (`kicked`: another bot's kick, copied to its list by `opsByBot`).
  const bans = new Map<string, OpRecord>();
  for (const op of ops) {
    if (op.outcome === "refused") continue;
    const acked = op.outcome === "acked";
    switch (op.kind) {
      case "create":
      case "join":
      case "quickJoin":
        if (!acked || op.code === null) state = { kind: "unknown", by: op };
        else if (state.kind === "in" && state.code === op.code) continue;
        else state = { kind: "in", code: op.code, ready: false, by: op };
        break;
      case "ready":
        if (state.kind === "in") {
          const ready = acked && typeof op.arg === "boolean" ? op.arg : null;
          state = { kind: "in", code: state.code, ready, by: state.by };
        }
        break;
      case "leave":
      case "joinActivity":
        // An activity's lobby takes the player out of its private one.
        state = acked ? { kind: "out", by: op } : { kind: "unknown", by: op };
        break;
      case "kicked":
        if (op.code !== null && bans.get(op.code)?.outcome !== "acked") bans.set(op.code, op);
        break;
      case "makeHost":
      case "start":
      case "return":
      case "finish":
      case "reconnect":
      case "setLobbyData":
      case "setMemberData":
      case "chat":
      case "kick":
      case "lock":
      case "activityReady":
      case "leaveActivity":
      case "findLobby":
      case "cancelSearch":
      case "matchedReady":
      case "leaveMatched":
      case "enterRoom":
      case "leaveRoom":
        break;
    }
  }
  // A ban holds whatever the order of the kick and the player's own requests: it cannot be in that lobby.
  const ban = state.kind === "in" ? bans.get(state.code) : undefined;
  if (ban) return ban.outcome === "acked" ? { kind: "out", by: ban } : { kind: "unknown", by: ban };
  return state;
}

/** Who the acknowledged requests say hosts a lobby: a player, or null when a departure made it uncertain. */
export interface HostExpectation {
  readonly host: string | null;
  /** The acknowledged request that made it so. */
  readonly by: OpRecord | null;
}

/** A request of the host's that takes it out of `code`: a leave of it, or an entry of another lobby. */
function leavesLobby(op: OpRecord, code: string): boolean {
  if (op.kind === "leave") return op.code === code;
  const enters =
    op.kind === "join" || op.kind === "create" || op.kind === "quickJoin" || op.kind === "joinActivity";
  return enters && op.code !== code;
}

/**
 * Replays every bot's requests about one lobby, in acknowledgement order, into its expected host: the
 * creator, then each acknowledged `makeHost`. When the host (or the one named) leaves, or any request that
 * could move the role ends unknown, the next host depends on who was connected then: uncertain from there
 * until the next acknowledged `makeHost`. A departure of the host counts whenever it may have landed after
 * the request that named it — it was answered after that request was sent, so one that was still in flight
 * when a `makeHost` named its bot counts too (protocol.md, "Where a player is": a join or create leaves
 * the lobby the player was in; `leave`: the role goes to the first connected member).
 */
export function expectedHost(code: string, ops: readonly OpRecord[]): HostExpectation {
  let host: string | null = null;
  let by: OpRecord | null = null;
  const about = ops
    .filter((op) => op.outcome !== "refused" && op.code === code)
    .sort((a, b) => a.endedAt - b.endedAt);
  for (const op of about) {
    const acked = op.outcome === "acked";
    if (op.kind === "create") {
      host = acked ? op.bot : null;
      by = op;
    } else if (op.kind === "makeHost") {
      host = acked && typeof op.arg === "string" ? op.arg : null;
      by = op;
    } else if (op.kind === "leave" && op.bot === host) {
      host = null;
      by = op;
    }
  }
  if (host === null || by === null) return { host, by };
  const named = by;
  const moved = ops.some(
    (op) =>
      op !== named &&
      op.bot === host &&
      op.outcome !== "refused" &&
      op.endedAt > named.sentAt &&
      leavesLobby(op, code),
  );
  return moved ? { host: null, by } : { host, by };
}
