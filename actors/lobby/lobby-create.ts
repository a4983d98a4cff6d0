import { reply, type ActorContext, type Effect, type Transition } from "../runtime/index.ts";
import type { PlayerRef } from "../common/index.ts";
import { dataLimitProblem, updatedLobbyData } from "./lobby-data.ts";
import { dataKeySchema, type DataValue, type LobbyData } from "./lobby-data-schema.ts";
import { pushState } from "./lobby-frames.ts";
import { lobbyInitSchema, type LobbyInit } from "./lobby-messages.ts";
import { joinedTell } from "./lobby-membership.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import type { LobbyState } from "./lobby-state.ts";
import { armGrace } from "./lobby-timers.ts";
import { addMember } from "./members.ts";

/** Making a lobby: its creator (or the studio's players), its first data and its door. */

type Step = Transition<LobbyState>;
type ParsedInit = ReturnType<typeof lobbyInitSchema.parse>;

/** The lobby data a create starts with: the older `metadata` as public keys, then `data` over it. */
function initialData(init: ParsedInit): LobbyData {
  const set: Record<string, { value: DataValue; visibility: "public" }> = {};
  for (const [key, value] of Object.entries(init.metadata ?? {})) {
    if (value !== undefined && dataKeySchema.safeParse(key).success)
      set[key] = { value, visibility: "public" };
  }
  return updatedLobbyData({}, { ...set, ...init.data }, []);
}

/**
 * Why a create's init cannot make a lobby on this node (its data over the limits, more seats than the
 * node's cap, a field that does not parse), or undefined. The gateway and the studio's API ask first, so a
 * player hears a typed error; the lobby would throw.
 */
export function createProblem(
  init: LobbyInit,
  options: Pick<LobbyOptions, "maxMembers" | "lobbyData">,
): { code: "INVALID" | "DATA_LIMIT"; message: string } | undefined {
  const parsed = lobbyInitSchema.safeParse(init);
  if (!parsed.success)
    return { code: "INVALID", message: parsed.error.issues[0]?.message ?? "invalid lobby" };
  const badKey = Object.keys(parsed.data.metadata ?? {}).find((key) => !dataKeySchema.safeParse(key).success);
  if (badKey !== undefined) {
    return {
      code: "INVALID",
      message: `metadata ${badKey.slice(0, 32)}: a data key is letters, digits and _ - . :`,
    };
  }
  const max = parsed.data.maxMembers;
  if (max !== undefined && max > options.maxMembers) {
    return { code: "INVALID", message: `this node seats at most ${options.maxMembers} members` };
  }
  const data = initialData(parsed.data);
  const values = new Map(Object.entries(data).map(([key, entry]) => [key, entry.value]));
  const problem = dataLimitProblem(values, options.lobbyData);
  return problem === undefined ? undefined : { code: "DATA_LIMIT", message: `lobby data: ${problem}` };
}

/**
 * A new lobby with its creator as first member and host. An invalid init is a caller's bug (the gateway
 * validates requests with `createProblem`), so it throws and the runtime reports INTERNAL.
 */
export function createLobby(init: unknown, ctx: ActorContext, options: LobbyOptions): Step {
  const problem = createProblem(init as LobbyInit, options);
  if (problem !== undefined) throw new RangeError(problem.message);
  const parsed = lobbyInitSchema.parse(init);
  const { code, host, public: isPublic, members, reserveSeconds } = parsed;
  const empty: LobbyState = {
    code,
    public: isPublic,
    data: initialData(parsed),
    version: 1,
    createdAt: ctx.now,
    door: {
      maxMembers: parsed.maxMembers ?? options.maxMembers,
      locked: parsed.locked,
      passwordHash: parsed.passwordHash,
    },
    banned: [],
    members: [],
    host: host.id,
    nextMemberId: 1,
    room: null,
    searching: null,
  };
  if (members.length > 0 || reserveSeconds !== undefined)
    return createReserved(empty, host, members, reserveSeconds, ctx);
  const state = addMember(empty, host);
  return {
    state,
    effects: [pushState(state), reply({ code }), joinedTell(host.id, ctx)],
  };
}

/**
 * A lobby made for players by the studio's backend: each player's registry hears it joined (and leaves the
 * lobby it was in), so the player finds the lobby when it connects. Until then it is away, with its seat
 * kept for `reserveSeconds` (a grace timer; without it the players count as here). A player listed twice is
 * one member.
 */
function createReserved(
  empty: LobbyState,
  host: PlayerRef,
  members: readonly PlayerRef[],
  reserveSeconds: number | undefined,
  ctx: ActorContext,
): Step {
  const players = [host, ...members].filter(
    (player, i, all) => all.findIndex((p) => p.id === player.id) === i,
  );
  let state = empty;
  for (const player of players) state = addMember(state, player);
  const effects: Effect[] = [];
  if (reserveSeconds !== undefined) {
    state = { ...state, members: state.members.map((m) => ({ ...m, connected: false })) };
    for (const player of players) effects.push(armGrace(player.id, ctx.now, reserveSeconds));
  }
  effects.push(pushState(state), reply({ code: state.code }));
  for (const player of players) effects.push(joinedTell(player.id, ctx));
  return { state, effects };
}
