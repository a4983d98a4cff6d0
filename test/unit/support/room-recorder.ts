import type { ActorKind } from "../../../actors/runtime/index.ts";

/** A stand-in room kind that records every room a lobby spawns (key and init) and does nothing else. */
export function roomRecorder(spawned: { key: string; init: unknown }[]): ActorKind<unknown, never> {
  return {
    kind: "room",
    schemaVersion: 1,
    create: (init, ctx) => {
      spawned.push({ key: ctx.key, init });
      return { state: init, effects: [] };
    },
    parse: () => undefined,
    handle: (state) => ({ state, effects: [] }),
    upgrade: (state) => state,
    idle: () => true,
  };
}
