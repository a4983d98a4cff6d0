import { z } from "zod";
import { playerIdSchema, roomInitSchema } from "../common/index.ts";
import { roomLimits } from "./room-limits.ts";
import type { RoomState } from "./room-state.ts";
import { roomSchemaVersion, roomStateSchema } from "./room-state.ts";

/** Reading snapshots of earlier room versions, so two releases can share a store during a rolling deploy. */

/** Version 1: the minimal room, which seated a lobby and relayed nothing. */
const minimalRoomSchema = roomInitSchema.extend({
  ended: z.boolean(),
  left: z.array(playerIdSchema),
});

/** A seed for a room that never drew one: derived from its code, so every node derives the same. */
function seedOfCode(code: string): number {
  let hash = 0;
  for (let i = 0; i < code.length; i++) hash = (Math.imul(hash, 31) + code.charCodeAt(i)) >>> 0;
  return hash % 2 ** 31;
}

/**
 * A minimal room becomes a lobby room whose clock waits for its host: it never ran a clock, so there is
 * no turn to continue from and nobody to wait for. Players who stepped out hold AI seats.
 */
function fromMinimalRoom(old: z.output<typeof minimalRoomSchema>): RoomState {
  return {
    code: old.code,
    lobby: old.lobby,
    abandonAt: null,
    blob: null,
    public: false,
    host: old.host,
    phase: old.ended ? "ended" : "playing",
    mode: old.mode,
    map: null,
    options: {},
    seats: old.seats.map((s) => {
      const human = s.player !== null && !old.left.includes(s.player);
      return {
        seat: s.seat,
        team: s.team,
        player: human ? s.player : null,
        name: null,
        ai: !human,
        ready: human,
        connected: human,
      };
    }),
    seed: seedOfCode(old.code),
    turnMs: roomLimits.defaultTurnMs,
    turnDurability: "volatile",
    clock: old.ended ? { status: "stopped" } : { status: "paused", reason: "missing" },
    lastTurn: 0,
    queue: [],
    handedToAi: [],
    recentTurns: [],
    checksums: [],
    recovery: null,
    tokens: {},
  };
}

/** Reads a room snapshot written by this or an earlier schema version. */
export function upgradeRoomState(state: unknown, version: number): RoomState {
  if (version === roomSchemaVersion) return roomStateSchema.parse(state);
  if (version === 1) return roomStateSchema.parse(fromMinimalRoom(minimalRoomSchema.parse(state)));
  throw new RangeError(`unknown room schema version ${version}`);
}
