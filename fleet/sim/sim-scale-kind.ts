import { z } from "zod";
import { type ActorKind, type Transition, kindMessageParser } from "../../actors/runtime/index.ts";

/**
 * The scale scenario's lobby (sim-scale.ts): a short-lived key whose players sit on other gateways than
 * its owner's, as a matched lobby's do (`mmlobby/…`, one of the relayed prefixes), so every op's push is
 * relayed to them. It counts its ops and pushes `applied` to its players; `close` ends it, which releases
 * its claim. Its players are named after it, so the world can seat each on a gateway without asking.
 */
export const scaleKindName = "mmlobby";

/** How many players each scale lobby pushes to. */
export const scalePlayersPerLobby = 4;

/** The players of the scale lobby `key`: `<key>#0` to `<key>#3`. */
export function scalePlayersOf(key: string): string[] {
  return Array.from({ length: scalePlayersPerLobby }, (_, i) => `${key}#${i}`);
}

const messageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("op"), op: z.string().min(1) }).strict(),
  z.object({ type: z.literal("close") }).strict(),
]);

type ScaleMessage = z.infer<typeof messageSchema>;

const parse = kindMessageParser(messageSchema);

/** The scale lobby: its state is how many ops it applied. */
export function simScaleKind(): ActorKind<number, ScaleMessage> {
  return {
    kind: scaleKindName,
    schemaVersion: 1,
    create: () => ({ state: 0, effects: [{ type: "reply" }] }),
    parse,
    upgrade: (state) => z.number().parse(state),
    handle(count, message, ctx): Transition<number> {
      if (message.type === "close") return { state: count, effects: [{ type: "reply" }, { type: "stop" }] };
      if (message.type !== "op") return { state: count, effects: [] };
      return {
        state: count + 1,
        effects: [
          { type: "push", to: scalePlayersOf(ctx.key), frame: { type: "applied", op: message.op } },
          { type: "reply" },
        ],
      };
    },
    idle: () => true,
  };
}
