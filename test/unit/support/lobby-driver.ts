import { expect } from "vitest";
import { testContext, type TestContext } from "../../../actors/runtime/test-context.ts";
import type { ActorKind, Effect, PushFrame } from "../../../actors/runtime/types.ts";
import {
  defaultLobbyOptions,
  lobbyKind,
  type LobbyMessage,
  type LobbyOptions,
  type LobbyState,
} from "../../../actors/lobby/index.ts";

/** Drives one lobby through the kind's own parse and handle, on a fake clock, keeping its state. */
export interface LobbyDriver {
  readonly kind: ActorKind<LobbyState, LobbyMessage>;
  readonly ctx: TestContext;
  readonly options: LobbyOptions;
  state: LobbyState;
  /** The studio's events (docs/server-api.md) so far, creation's included; not in what `send` returns. */
  readonly events: Effect[];
  /** Sends a raw message (parsed first, as the runtime does); returns the effects but the events. */
  send(message: unknown): readonly Effect[];
  /** Fires a timer as the runtime would. */
  fire(name: string): readonly Effect[];
}

/** The lobby key every test lobby lives under. */
export const KEY = "lobby/ABC123";
/** The clock every test starts at. */
export const T0 = 1_000_000;

/** A lobby created by `host` with the given options (merged over the defaults). */
export function lobby(
  options: Partial<LobbyOptions> = {},
  init: {
    host?: string;
    public?: boolean;
    metadata?: Record<string, string | number | boolean> | null;
    /** Further create fields (data, maxMembers, locked, passwordHash). */
    extra?: Record<string, unknown>;
  } = {},
): LobbyDriver & { readonly created: readonly Effect[] } {
  const merged: LobbyOptions = { ...defaultLobbyOptions, ...options };
  const kind = lobbyKind(merged);
  const ctx = testContext({ key: KEY, now: T0, seed: 7 });
  const host = init.host ?? "alice";
  const { state, effects } = kind.create(
    {
      code: "ABC123",
      host: { id: host, name: host.toUpperCase() },
      public: init.public ?? false,
      metadata: init.metadata ?? null,
      ...init.extra,
    },
    ctx,
  );
  const isEvent = (e: Effect): boolean => e.type === "event";
  const driver = {
    kind,
    ctx,
    options: merged,
    state,
    created: effects.filter((e) => !isEvent(e)),
    events: effects.filter(isEvent),
    send(message: unknown): readonly Effect[] {
      const parsed = kind.parse(message);
      expect(parsed, `parse ${JSON.stringify(message)}`).toBeDefined();
      const t = kind.handle(driver.state, parsed!, ctx);
      driver.state = t.state;
      driver.events.push(...t.effects.filter(isEvent));
      return t.effects.filter((e) => !isEvent(e));
    },
    fire(name: string): readonly Effect[] {
      return driver.send({ type: "timer", name });
    },
  };
  return driver;
}

/** A lobby whose members (after the host `alice`) joined in order. */
export function lobbyOf(
  players: readonly string[],
  options: Partial<LobbyOptions> = {},
  publicLobby = false,
) {
  const [host, ...rest] = players;
  const d = lobby(options, {
    host: host ?? "alice",
    public: publicLobby,
    metadata: publicLobby ? { mode: "duo", map: "dunes" } : null,
  });
  for (const p of rest) d.send({ type: "join", player: { id: p, name: p.toUpperCase() } });
  return d;
}

/** The effects of a given type. */
export function ofType<T extends Effect["type"]>(
  effects: readonly Effect[],
  type: T,
): Extract<Effect, { type: T }>[] {
  return effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);
}

/** The lobby frames pushed, with their recipients. */
export function pushes(effects: readonly Effect[]): { to: readonly string[]; frame: PushFrame }[] {
  return ofType(effects, "push").map((p) => ({ to: p.to, frame: p.frame }));
}

/** Asserts a refusal: exactly one effect, a reject with this code, and the very same state object. */
export function expectRefused(d: LobbyDriver, message: unknown, code: string): void {
  const before = d.state;
  const effects = d.send(message);
  expect(effects).toHaveLength(1);
  expect(effects[0]).toMatchObject({ type: "reject", code });
  expect(d.state).toBe(before);
}

/** The members as [player, memberId, team, connected, inRoom] rows, for compact exact assertions. */
export function roster(state: LobbyState): [string, number, number | null, boolean, boolean][] {
  return state.members.map((m) => [m.player, m.memberId, m.team, m.connected, m.inRoom]);
}
