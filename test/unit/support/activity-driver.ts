import { expect } from "vitest";
import {
  activityLobbyKind,
  type ActivityLobbyMessage,
  type ActivityLobbyOptionsInput,
  type ActivityLobbyState,
  type ActivitySettingsInput,
  activitySettingsSchema,
} from "../../../actors/activity/index.ts";
import { testContext, type TestContext } from "../../../actors/runtime/test-context.ts";
import type { ActorKind, Effect, PushFrame } from "../../../actors/runtime/types.ts";

/** Drives one activity lobby through the kind's own parse and handle, on a fake clock, keeping its state. */
export interface ActivityDriver {
  readonly kind: ActorKind<ActivityLobbyState, ActivityLobbyMessage>;
  readonly ctx: TestContext;
  state: ActivityLobbyState;
  /** Sends a raw message (parsed first, as the runtime does); returns the effects. */
  send(message: unknown): readonly Effect[];
  /** Fires a timer as the runtime would. */
  fire(name: string): readonly Effect[];
  /** Moves the clock forward by whole seconds. */
  wait(seconds: number): void;
  join(id: string, vehicle?: string): readonly Effect[];
  ready(id: string, ready?: boolean): readonly Effect[];
  leave(id: string): readonly Effect[];
}

/** The key every test lobby lives under. */
export const KEY = "activityLobby/race/1";
/** The clock every test starts at. */
export const T0 = 1_000_000;

/** A racing activity: one player per team, 2 to 4 players (minimum 2, capacity 4), 60 s wait, 10 s start delay. */
export const race: ActivitySettingsInput = {
  id: "race",
  map: "1203",
  minTeams: 2,
  maxTeams: 4,
  minTeamSize: 1,
  maxTeamSize: 1,
  waitTime: 60,
  startDelay: 10,
};

/** A new, empty activity lobby of `settings` (the racing activity by default). */
export function activityLobby(
  settings: Partial<ActivitySettingsInput> = {},
  options: ActivityLobbyOptionsInput = {},
  key = KEY,
): ActivityDriver {
  const kind = activityLobbyKind(options);
  const ctx = testContext({ key, now: T0, seed: 11 });
  const { state } = kind.create({ settings: activitySettingsSchema.parse({ ...race, ...settings }) }, ctx);
  const driver: ActivityDriver = {
    kind,
    ctx,
    state,
    send(message) {
      const parsed = kind.parse(message);
      expect(parsed, `parse ${JSON.stringify(message)}`).toBeDefined();
      const t = kind.handle(driver.state, parsed!, ctx);
      driver.state = t.state;
      return t.effects;
    },
    fire: (name) => driver.send({ type: "timer", name }),
    wait(seconds) {
      ctx.advance(seconds * 1000);
    },
    join: (id, vehicle) =>
      driver.send(
        vehicle === undefined
          ? { type: "join", player: { id, name: id.toUpperCase() } }
          : { type: "join", player: { id, name: id.toUpperCase() }, vehicle },
      ),
    ready: (id, ready = true) => driver.send({ type: "ready", player: id, ready }),
    leave: (id) => driver.send({ type: "leave", player: id }),
  };
  return driver;
}

/** A lobby the players joined, in order. */
export function activityLobbyOf(
  players: readonly string[],
  settings: Partial<ActivitySettingsInput> = {},
  options: ActivityLobbyOptionsInput = {},
): ActivityDriver {
  const d = activityLobby(settings, options);
  for (const p of players) d.join(p);
  return d;
}

/** The frames one player receives from these effects, in order. */
export function framesTo(effects: readonly Effect[], player: string): PushFrame[] {
  return effects.flatMap((e) => (e.type === "push" && e.to.includes(player) ? [e.frame] : []));
}

/** The effects of one type. */
export function ofType<T extends Effect["type"]>(
  effects: readonly Effect[],
  type: T,
): Extract<Effect, { type: T }>[] {
  return effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);
}

/** Asserts a refusal: exactly one effect, a reject with this code, and the very same state object. */
export function expectRefused(d: ActivityDriver, message: unknown, code: string): void {
  const before = d.state;
  const effects = d.send(message);
  expect(effects).toHaveLength(1);
  expect(effects[0]).toMatchObject({ type: "reject", code });
  expect(d.state).toBe(before);
}

/** The expected frames, written short. */
export const ev = {
  added: (player: string, vehicle?: string): PushFrame =>
    vehicle === undefined
      ? { type: "activity", event: "PLAYER_ADDED", player, name: player.toUpperCase() }
      : { type: "activity", event: "PLAYER_ADDED", vehicle, player, name: player.toUpperCase() },
  removed: (player: string): PushFrame => ({ type: "activity", event: "PLAYER_REMOVED", player }),
  ready: (player: string): PushFrame => ({ type: "activity", event: "PLAYER_READY", player }),
  notReady: (player: string): PushFrame => ({ type: "activity", event: "PLAYER_NOT_READY", player }),
  waitReady: (time: number): PushFrame => ({ type: "activity", event: "PHASE_WAIT_READY", time }),
  waitStart: (time: number): PushFrame => ({ type: "activity", event: "PHASE_WAIT_START", time }),
  paused: (time: number): PushFrame => ({ type: "activity", event: "PHASE_WAIT_PAUSED", time }),
};

/** The lobby's players as [id, ready, connected] rows, for compact exact assertions. */
export function roster(state: ActivityLobbyState): [string, boolean, boolean][] {
  return state.players.map((p) => [p.id, p.ready, p.connected]);
}
