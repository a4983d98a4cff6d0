import { z } from "zod";
import {
  type ActorKind,
  type Effect,
  type Transition,
  kindMessageParser,
} from "../../actors/runtime/index.ts";
import { leaveOp, leftOp, pendingLeaves } from "./sim-ops.ts";

/**
 * The simulation's counting actors as pure ActorKinds run by the real ActorSystem of each FleetNode: a
 * counter lobby (`counter/…`) and a player registry (`player/…`), each holding the op ids it applied, in order. An op
 * already held is not applied again but answered again, so a retry is applied once. Every application
 * and every answer pushes `applied { op }` to the world's listener: the runtime stamps that frame with
 * the owner's epoch, which is how the world learns the epoch of each acknowledgement (a reply carries
 * none), and it is silenced as the reply is when the node's lease ran out.
 */

/** The player every `applied` frame is pushed to: the world's record of acknowledgements. */
export const ackListener = "sim-acks";

/** How often a registry tells an old lobby `leave` again until the lobby confirms it. */
export const leaveRetryMs = 400;

const driveTimer = "drive";

const messageSchema = z.discriminatedUnion("type", [
  /** A client's op, or one actor's op for another (a registry's `leave`, a lobby's `left`). */
  z.object({ type: z.literal("op"), op: z.string().min(1) }).strict(),
  /** Answers how many ops the actor holds, changing nothing: the final check's probe. */
  z.object({ type: z.literal("get") }).strict(),
]);

type SimMessage = z.infer<typeof messageSchema>;
type Ops = readonly string[];

const opsSchema = z.array(z.string());

const parse = kindMessageParser(messageSchema);

function applied(op: string): Effect {
  return { type: "push", to: [ackListener], frame: { type: "applied", op } };
}

/**
 * `op` applied to `ops` once, acknowledged, with what it causes. An op already held is acknowledged
 * again and causes its effects again (a lobby confirms a retried `leave` once more: the first `left`
 * may have been lost on the bus), so every step of an intent is idempotent.
 */
function apply(ops: Ops, op: string, causes: (next: Ops) => readonly Effect[]): Transition<Ops> {
  const next = ops.includes(op) ? ops : [...ops, op];
  return { state: next, effects: [applied(op), { type: "reply" }, ...causes(next)] };
}

/** The kind's common parts: create empty, read its state, answer the probe. */
function counterBase(
  kind: string,
): Pick<ActorKind<Ops, SimMessage>, "kind" | "schemaVersion" | "create" | "parse" | "upgrade"> {
  return {
    kind,
    schemaVersion: 1,
    create: () => ({ state: [], effects: [{ type: "reply" }] }),
    parse,
    upgrade: (state) => opsSchema.parse(state),
  };
}

function probe(ops: Ops): Transition<Ops> {
  return { state: ops, effects: [{ type: "reply", value: ops.length }] };
}

/** A counter lobby (`counter/…`, beside the real lobby kind's `lobby/…`): applies ops; a member's `leave` (told by its registry) is confirmed to the registry with `left`. */
export function simLobbyKind(): ActorKind<Ops, SimMessage> {
  return {
    ...counterBase("counter"),
    handle(ops, message, ctx) {
      if (message.type === "get") return probe(ops);
      if (message.type !== "op") return { state: ops, effects: [] };
      const leaving = /^leave:(.+)$/.exec(message.op)?.[1];
      return apply(ops, message.op, () =>
        leaving === undefined
          ? []
          : [{ type: "tell", to: `player/${leaving}`, message: { type: "op", op: leftOp(ctx.key) } }],
      );
    },
    idle: () => true,
  };
}

/**
 * A player's registry: a `move:<lobby>` op is an intent, driven by telling that lobby `leave` on a timer
 * until the lobby's `left` comes back (actors/player/ drives its intents the same way). Restored
 * elsewhere, the timer in its snapshot drives it on. `drives: false` is the broken variant that records
 * the move and never leaves.
 */
export function simRegistryKind(drives = true): ActorKind<Ops, SimMessage> {
  const drive = (ops: Ops, player: string, now: number): Effect[] => {
    const pending = drives ? pendingLeaves(ops) : [];
    if (pending.length === 0) return [];
    return [
      ...pending.map((lobby): Effect => ({
        type: "tell",
        to: lobby,
        message: { type: "op", op: leaveOp(player) },
      })),
      { type: "timer", name: driveTimer, at: now + leaveRetryMs, kind: "game" },
    ];
  };
  return {
    ...counterBase("player"),
    handle(ops, message, ctx) {
      const player = ctx.key.slice("player/".length);
      switch (message.type) {
        case "get":
          return probe(ops);
        case "op":
          return apply(ops, message.op, (next) =>
            message.op.startsWith("move:") ? drive(next, player, ctx.now) : [],
          );
        case "timer":
        case "restored":
          return { state: ops, effects: drive(ops, player, ctx.now) };
      }
    },
    idle: (ops) => pendingLeaves(ops).length === 0,
  };
}
