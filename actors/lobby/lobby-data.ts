import { refuse, reply, type Transition } from "../runtime/index.ts";
import type { DataLimits, DataValue, LobbyData, MemberData } from "./lobby-data-schema.ts";
import { recordOf } from "./lobby-data-values.ts";
import { pushState } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";
import { updateMember } from "./members.ts";
import type { LobbyEnv } from "./lobby-env.ts";
import { hostRefusal } from "./host-check.ts";

/**
 * Lobby data (the host's, each key `public` or `member`) and member data (each member's own). Every
 * change is one request that sets and deletes several keys at once, checked against the node's limits
 * as a whole: an update that would break one changes nothing.
 */

type Step = Transition<LobbyState>;

/** The UTF-8 length of a string, counted without an encoder (the lobby's code stays plain). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const point = char.codePointAt(0) ?? 0;
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** What a value counts against the limits: a string's UTF-8 bytes, 8 for a number, 1 for a boolean. */
export function valueBytes(value: DataValue): number {
  if (typeof value === "string") return utf8Bytes(value);
  return typeof value === "number" ? 8 : 1;
}

/** Why a set of values breaks the limits, or undefined when it keeps them. */
export function dataLimitProblem(
  values: ReadonlyMap<string, DataValue>,
  limits: DataLimits,
): string | undefined {
  if (values.size > limits.maxKeys) return `at most ${limits.maxKeys} keys`;
  let total = 0;
  for (const [key, value] of values) {
    if (key.length > limits.maxKeyLength)
      return `key ${key.slice(0, 32)}… is over ${limits.maxKeyLength} characters`;
    if (typeof value === "number" && !Number.isFinite(value)) return `key ${key} is not a finite number`;
    const bytes = valueBytes(value);
    if (bytes > limits.maxValueBytes) return `the value of ${key} is over ${limits.maxValueBytes} bytes`;
    total += utf8Bytes(key) + bytes;
  }
  return total > limits.maxTotalBytes ? `the data is over ${limits.maxTotalBytes} bytes in all` : undefined;
}

/** The keys an update both sets and deletes: such an update means nothing, so it is refused. */
function overlap(set: Readonly<Record<string, unknown>>, deleted: readonly string[]): string | undefined {
  return deleted.find((key) => Object.hasOwn(set, key));
}

/** The lobby's data after an update: deletes first, then sets (a new key is `public` unless it says). */
export function updatedLobbyData(
  data: LobbyData,
  set: LobbyMessageOf<"setData">["set"],
  deleted: readonly string[],
): LobbyData {
  const next = new Map(Object.entries(data));
  for (const key of deleted) next.delete(key);
  for (const [key, entry] of Object.entries(set)) {
    const visibility = entry.visibility ?? next.get(key)?.visibility ?? "public";
    next.set(key, { value: entry.value, visibility });
  }
  return recordOf(next);
}

function valuesOf(data: LobbyData): Map<string, DataValue> {
  return new Map(Object.entries(data).map(([key, entry]) => [key, entry.value]));
}

function sameRecord(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]))
  );
}

/**
 * The host (or the studio's backend, with no `player`) sets and deletes lobby data keys in one step.
 * With `ifVersion`, the update applies only to that version of the lobby: any change since (of data or
 * anything else) refuses it VERSION_CONFLICT. Answers the lobby's new `version`.
 */
export function setLobbyData(state: LobbyState, message: LobbyMessageOf<"setData">, env: LobbyEnv): Step {
  const notAllowed = hostRefusal(state, message.player);
  if (notAllowed) return notAllowed;
  if (message.ifVersion !== undefined && message.ifVersion !== state.version) {
    return refuse(
      state,
      "VERSION_CONFLICT",
      `the lobby is at version ${state.version}, not ${message.ifVersion}`,
    );
  }
  const both = overlap(message.set, message.delete);
  if (both !== undefined) return refuse(state, "INVALID", `key ${both} is both set and deleted`);
  const data = updatedLobbyData(state.data, message.set, message.delete);
  const problem = dataLimitProblem(valuesOf(data), env.options.lobbyData);
  if (problem !== undefined) return refuse(state, "DATA_LIMIT", `lobby data: ${problem}`);
  if (sameRecord(data, state.data)) return { state, effects: [reply({ version: state.version })] };
  const next: LobbyState = { ...state, data, version: state.version + 1 };
  return { state: next, effects: [pushState(next), reply({ version: next.version })] };
}

/** A member's data after an update: deletes first, then sets. */
function updatedMemberData(data: MemberData, set: MemberData, deleted: readonly string[]): MemberData {
  const next = new Map(Object.entries(data));
  for (const key of deleted) next.delete(key);
  for (const [key, value] of Object.entries(set)) next.set(key, value);
  return recordOf(next);
}

/** A member sets and deletes keys of its own data (nobody sets another's). Answers the lobby's `version`. */
export function setMemberData(
  state: LobbyState,
  message: LobbyMessageOf<"setMemberData">,
  env: LobbyEnv,
): Step {
  const member = findMember(state, message.player);
  if (member === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${message.player} is not in lobby ${state.code}`);
  }
  const both = overlap(message.set, message.delete);
  if (both !== undefined) return refuse(state, "INVALID", `key ${both} is both set and deleted`);
  const data = updatedMemberData(member.data, message.set, message.delete);
  const problem = dataLimitProblem(new Map(Object.entries(data)), env.options.memberData);
  if (problem !== undefined) return refuse(state, "DATA_LIMIT", `member data: ${problem}`);
  if (sameRecord(data, member.data)) return { state, effects: [reply({ version: state.version })] };
  const next: LobbyState = { ...updateMember(state, message.player, { data }), version: state.version + 1 };
  return { state: next, effects: [pushState(next), reply({ version: next.version })] };
}
