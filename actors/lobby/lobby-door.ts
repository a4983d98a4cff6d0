import { refuse, reply, type Transition } from "../runtime/index.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import { pushState } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import type { Door, LobbyState } from "./lobby-state.ts";
import { hostRefusal } from "./host-check.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/**
 * The door: how many seats, whether it is locked, and an optional password. The lobby sees only the
 * password's hash, made by the gateway (docs/lobbies.md), and compares hashes.
 */

type Step = Transition<LobbyState>;

/** The seats a lobby has: its own limit, never more than this node's cap. */
export function seatLimit(state: LobbyState, options: Pick<LobbyOptions, "maxMembers">): number {
  return Math.min(state.door.maxMembers, options.maxMembers);
}

/** Compares two hashes in time that depends only on their lengths, so a guess learns nothing from it. */
export function sameHash(a: string, b: string): boolean {
  let differ = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) differ |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return differ === 0;
}

/**
 * Why a new member may not come in, or undefined: banned (for the lobby's life), locked, the wrong
 * password (or none), or no free seat — in that order, so a banned player learns nothing of the rest.
 */
export function joinRefusal(
  state: LobbyState,
  message: LobbyMessageOf<"join">,
  env: LobbyEnv,
): Step | undefined {
  const { id } = message.player;
  if (state.banned.includes(id)) return refuse(state, "BANNED", `you are banned from lobby ${state.code}`);
  if (state.door.locked) return refuse(state, "LOBBY_LOCKED", `lobby ${state.code} is locked`);
  const hash = state.door.passwordHash;
  if (hash !== null && (message.passwordHash === undefined || !sameHash(hash, message.passwordHash))) {
    return refuse(state, "WRONG_PASSWORD", `wrong password for lobby ${state.code}`);
  }
  const seats = seatLimit(state, env.options);
  if (state.members.length >= seats) return refuse(state, "FULL", `lobby ${state.code} has ${seats} members`);
  return undefined;
}

/** Why a door change is not valid here, or undefined. */
function doorProblem(
  state: LobbyState,
  message: LobbyMessageOf<"setDoor">,
  env: LobbyEnv,
): string | undefined {
  const max = message.maxMembers;
  if (max === undefined) return undefined;
  if (max > env.options.maxMembers) return `this node seats at most ${env.options.maxMembers} members`;
  if (max < state.members.length) return `the lobby has ${state.members.length} members already`;
  return undefined;
}

/**
 * The host (or the studio's backend, without `player`) changes the door: seats (down to the members
 * there are), the lock, the password (`passwordHash` null removes it). Answers the lobby's `version`.
 */
export function setDoor(state: LobbyState, message: LobbyMessageOf<"setDoor">, env: LobbyEnv): Step {
  const notAllowed = hostRefusal(state, message.player);
  if (notAllowed) return notAllowed;
  const problem = doorProblem(state, message, env);
  if (problem !== undefined) return refuse(state, "INVALID", problem);
  const door: Door = {
    maxMembers: message.maxMembers ?? state.door.maxMembers,
    locked: message.locked ?? state.door.locked,
    passwordHash: message.passwordHash === undefined ? state.door.passwordHash : message.passwordHash,
  };
  const same =
    door.maxMembers === state.door.maxMembers &&
    door.locked === state.door.locked &&
    door.passwordHash === state.door.passwordHash;
  if (same) return { state, effects: [reply({ version: state.version })] };
  const next: LobbyState = { ...state, door, version: state.version + 1 };
  return { state: next, effects: [pushState(next), reply({ version: next.version })] };
}
