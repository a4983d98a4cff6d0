import { expect } from "vitest";
import {
  lobbyTypeSchema,
  matchedLobbyKind,
  queueKind,
  type LobbyTypeInput,
  type MatchedLobbyInit,
  type MatchedLobbyState,
  type QueueState,
} from "../../../actors/matchmaking/index.ts";
import { testContext, type TestContext } from "../../../actors/runtime/test-context.ts";
import type { Effect, NodeView } from "../../../actors/runtime/types.ts";
import { cursorPartyV2 } from "../../../ops/lobby-types.ts";

/** Drives matched lobbies and queues by hand on a fake clock: one message in, the effects out. */

/** The seed's `CursorPartyV2` type, with a boolean in its room config too (every JSON kind reaches the room). */
export const cursorParty: LobbyTypeInput = {
  ...cursorPartyV2,
  roomConfig: { ...cursorPartyV2.roomConfig, roomConfig_key3: false },
};

/** Two teams of 2, strict rules: full and everyone ready, or nothing until onTime; tooLate at 120 s. */
export const duel: LobbyTypeInput = {
  id: "duel",
  teams: [
    { code: "red", minUsers: 1, maxUsers: 2, autoAssign: true },
    { code: "blue", minUsers: 1, maxUsers: 2, autoAssign: true },
  ],
  rules: {
    allowEarlyStartWithoutMax: false,
    forceOnTimeStartWithoutReady: false,
    allowJoinInProgress: false,
    onTimeStartSecs: 60,
    disbandOnStart: false,
    everyReadyMinPercent: 100,
    everyReadyMinNum: 1,
    earliestStartSecs: 10,
    tooLateSecs: 120,
  },
};

/** A type with the rules changed. */
export function withRules(type: LobbyTypeInput, rules: Partial<LobbyTypeInput["rules"]>): LobbyTypeInput {
  return { ...type, rules: { ...type.rules, ...rules } };
}

/** A group player as the queue sends it. */
export function gp(id: string, rating = 100, isReady = false) {
  return { id, name: id.toUpperCase(), rating, isReady, extra: {} };
}

/** Sends messages to one actor and keeps its state; fails the test when a message does not parse. */
interface Driven<S> {
  readonly state: S;
  readonly ctx: TestContext;
  send(message: unknown): readonly Effect[];
  /** Moves the clock and delivers the timer, as the runtime does when it fires. */
  fire(name: string, at?: number): readonly Effect[];
}

function drive<S>(
  kind: {
    parse(m: unknown): unknown;
    handle(s: S, m: never, c: TestContext): { state: S; effects: readonly Effect[] };
  },
  initial: { state: S; effects: readonly Effect[] },
  ctx: TestContext,
): Driven<S> & { created: readonly Effect[] } {
  let state = initial.state;
  return {
    created: initial.effects,
    get state() {
      return state;
    },
    ctx,
    send(message) {
      const parsed = kind.parse(message);
      expect(parsed, JSON.stringify(message)).toBeDefined();
      const t = kind.handle(state, parsed as never, ctx);
      state = t.state;
      return t.effects;
    },
    fire(name, at) {
      if (at !== undefined) ctx.now = at;
      return this.send({ type: "timer", name });
    },
  };
}

/** A matched lobby `mmlobby/<type>/1` created by `creators`, on a fake clock starting at 1_000_000. */
export function matchedLobby(type: LobbyTypeInput, creators = [gp("alice")], node: Partial<NodeView> = {}) {
  const lobbyType = lobbyTypeSchema.parse(type);
  const ctx = testContext({ key: `mmlobby/${lobbyType.id}/1`, node });
  const kind = matchedLobbyKind();
  const init: MatchedLobbyInit = {
    lobbyType,
    queue: `queue/${lobbyType.id}`,
    region: "eu",
    settings: { level: 3 },
    group: { entry: "e1", team: null, players: creators },
  };
  const d = drive<MatchedLobbyState>(kind, kind.create(init, ctx), ctx);
  let entries = 1;
  return Object.assign(d, {
    t0: ctx.now,
    /** A group joins as the queue would send it. */
    join: (players: ReturnType<typeof gp>[], team: string | null = null) =>
      d.send({ type: "join", group: { entry: `e${++entries}`, team, players } }),
    ready: (player: string, ready = true) => d.send({ type: "ready", player, ready }),
    ids: () => d.state.members.map((m) => m.id),
  });
}

/** A queue `queue/<type>` on a fake clock, with the type (and others) configured. */
export function queue(
  type: LobbyTypeInput,
  options: { stepSeconds?: number; filterTimeoutMs?: number } = {},
  node: Partial<NodeView> = {},
) {
  const lobbyType = lobbyTypeSchema.parse(type);
  const kind = queueKind({ lobbyTypes: [type] }, options);
  const ctx = testContext({ key: `queue/${lobbyType.id}`, node });
  const d = drive<QueueState>(kind, kind.create(undefined, ctx), ctx);
  const stepMs = (options.stepSeconds ?? 2) * 1000;
  return Object.assign(d, {
    lobbyType,
    /** Runs one step: the clock moves to the armed step time and the step timer fires. */
    step: () => d.fire("step", d.state.tickAt ?? ctx.now + stepMs),
    /** A lobby report, as a matched lobby would send it. */
    report: (lobby: string, version: number, rating: number, extra: object = {}) =>
      d.send({
        type: "lobbyStatus",
        lobby,
        version,
        region: "eu",
        phase: "pre_game",
        rating,
        open: true,
        free: Object.fromEntries(lobbyType.teams.map((t) => [t.code, t.maxUsers - 1])),
        owner: "owner",
        settings: {},
        round: 1,
        timetable: { createdAt: 0, early: 0, onTime: 0, tooLate: 0 },
        members: [],
        ...extra,
      }),
  });
}

/** A search request with the seed's defaults (ranged-absolute, center, ±10 then ±20). */
export function find(
  player: string,
  rating: number,
  extra: object = {},
  type: "findLobby" | "findOrCreateLobby" = "findLobby",
) {
  return {
    type,
    player: { id: player, name: player.toUpperCase() },
    rating,
    maxSteps: 3,
    algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10, 20] },
    ...extra,
  };
}

/** The effects of one type. */
export function ofType<T extends Effect["type"]>(
  effects: readonly Effect[],
  type: T,
): Extract<Effect, { type: T }>[] {
  return effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);
}

/** The frames pushed, as [type, recipients] pairs. */
export function pushed(effects: readonly Effect[]): [string, readonly string[]][] {
  return ofType(effects, "push").map((p) => [p.frame.type, p.to]);
}
