import { expect } from "vitest";
import { roomKind, type RoomMessage, type RoomState } from "../../../actors/room/index.ts";
import { testContext, type TestContext } from "../../../actors/runtime/test-context.ts";
import type { ActorKind, Effect, PushFrame, Transition } from "../../../actors/runtime/types.ts";

/** Drives one room through the kind's own parse and handle on a fake clock, firing its turn timer. */
export interface RoomDriver {
  readonly kind: ActorKind<RoomState, RoomMessage>;
  readonly ctx: TestContext;
  state: RoomState;
  readonly created: readonly Effect[];
  /** The deadline of the armed turn timer, as the runtime would hold it; null when none is armed. */
  timerAt: number | null;
  /** The last transition (to read `volatile`). */
  last: Transition<RoomState> | null;
  /** The studio's events (docs/server-api.md) so far; `send` leaves them out of what it returns. */
  readonly events: Effect[];
  /** Sends a raw message (parsed first, as the runtime does); returns the effects but the events. */
  send(message: unknown): readonly Effect[];
  /** Moves the clock by `ms`, firing the turn timer whenever it falls due; returns every effect. */
  advance(ms: number): Effect[];
}

/** The clock every room test starts at. */
export const T0 = 1_000_000;

/** A lobby's room init: alice (host) and bob on teams 0 and 1, carol on team 0, a bot on team 1. */
export const lobbyInit = {
  code: "QWERTY",
  lobby: "lobby/ABC123",
  mode: "duo",
  host: "alice",
  seats: [
    { seat: 1, team: 0, player: "alice" },
    { seat: 2, team: 1, player: "bob" },
    { seat: 3, team: 0, player: "carol" },
    { seat: 50, team: 1, player: null },
  ],
};

/** A room created with `init` on a test context. */
export function roomDriver(init: unknown, seed = 1): RoomDriver {
  const kind = roomKind();
  const ctx = testContext({ key: "room/QWERTY", now: T0, seed });
  const created = kind.create(init, ctx);
  const driver: RoomDriver = {
    kind,
    ctx,
    state: created.state,
    created: created.effects,
    timerAt: null,
    last: created,
    events: [],
    send(message) {
      const parsed = kind.parse(message);
      expect(parsed, `parse ${JSON.stringify(message)}`).toBeDefined();
      const t = kind.handle(driver.state, parsed!, ctx);
      driver.state = t.state;
      driver.last = t;
      track(driver, t.effects);
      driver.events.push(...t.effects.filter((e) => e.type === "event"));
      return t.effects.filter((e) => e.type !== "event");
    },
    advance(ms) {
      const target = ctx.now + ms;
      const all: Effect[] = [];
      while (driver.timerAt !== null && driver.timerAt <= target) {
        ctx.now = Math.max(ctx.now, driver.timerAt);
        driver.timerAt = null;
        all.push(...driver.send({ type: "timer", name: "turn" }));
      }
      ctx.now = target;
      return all;
    },
  };
  track(driver, created.effects);
  return driver;
}

function track(driver: RoomDriver, effects: readonly Effect[]): void {
  for (const e of effects) {
    if (e.type === "timer" && e.name === "turn") driver.timerAt = e.at;
    if (e.type === "cancelTimer" && e.name === "turn") driver.timerAt = null;
  }
}

/** A room created directly by alice with `seats` seats (and more init fields). */
export function directRoom(seats = 4, more: Record<string, unknown> = {}): RoomDriver {
  return roomDriver({
    code: "QWERTY",
    direct: true,
    host: { id: "alice", name: "Alice" },
    seats,
    mode: "versus",
    map: "caves",
    ...more,
  });
}

/** A direct room where `guests` joined (sides 1, 2, …) and everyone got ready: the match runs. */
export function startedDirectRoom(guests: readonly string[], seats = 4, more: Record<string, unknown> = {}) {
  const d = directRoom(seats, more);
  for (const g of guests) d.send({ type: "join", player: { id: g, name: g.toUpperCase() } });
  for (const p of ["alice", ...guests]) d.send({ type: "ready", player: p, ready: true });
  expect(d.state.phase).toBe("playing");
  return d;
}

/** The effects of a given type. */
export function ofType<T extends Effect["type"]>(
  effects: readonly Effect[],
  type: T,
): Extract<Effect, { type: T }>[] {
  return effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);
}

/** The frames of a type pushed by these effects, with their recipients. */
export function pushed(
  effects: readonly Effect[],
  type: string,
): { to: readonly string[]; frame: PushFrame }[] {
  return ofType(effects, "push")
    .filter((p) => p.frame.type === type)
    .map((p) => ({ to: p.to, frame: p.frame }));
}

/** The turn frames in these effects. */
export function turns(effects: readonly Effect[]): PushFrame[] {
  return pushed(effects, "turn").map((p) => p.frame);
}

/** Asserts a refusal: exactly one effect, a reject with this code, and the very same state object. */
export function expectRefused(d: RoomDriver, message: unknown, code: string): void {
  const before = d.state;
  const effects = d.send(message);
  expect(effects).toHaveLength(1);
  expect(effects[0]).toMatchObject({ type: "reject", code });
  expect(d.state).toBe(before);
}
