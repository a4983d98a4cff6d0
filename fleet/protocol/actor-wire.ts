import { pack } from "msgpackr";
import { z } from "zod";
import { errorCodeList, type AskResult, type RequestId } from "../../actors/runtime/index.ts";
import { decodeValue } from "./decode-value.ts";

/** The subject a node's endpoint serves: messages for its actors, from other nodes. */
export function nodeActorSubject(node: string): string {
  return `foyer.node.${node}.actor`;
}

/** A message for one actor of another node: asked (answered with an AskResult) or told (`tell`). */
export interface ActorDelivery {
  readonly key: string;
  readonly message: unknown;
  readonly request?: RequestId;
  /** Fire and forget: no answer is sent. */
  readonly tell?: boolean;
  /** Create the actor `key` on the receiving node with `message` as its init (a placed room). */
  readonly spawn?: boolean;
}

const deliverySchema = z.object({
  key: z.string().min(1),
  message: z.unknown(),
  request: z
    .object({ session: z.string(), id: z.number(), answeredThrough: z.number().exactOptional() })
    .exactOptional(),
  tell: z.boolean().exactOptional(),
  spawn: z.boolean().exactOptional(),
});

const askResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown().exactOptional() }),
  z.object({
    ok: z.literal(false),
    code: z.enum(errorCodeList),
    message: z.string(),
    retryAfterMs: z.number().exactOptional(),
  }),
]);

/** Packs a delivery for the bus. */
export function encodeDelivery(delivery: ActorDelivery): Uint8Array {
  return pack(delivery);
}

/** Unpacks and validates a delivery; throws CorruptValueError. */
export function decodeDelivery(bytes: Uint8Array): ActorDelivery {
  const { key, message, request, tell, spawn } = decodeValue("delivery", deliverySchema, bytes);
  return {
    key,
    message,
    ...(request === undefined ? {} : { request }),
    ...(tell === undefined ? {} : { tell }),
    ...(spawn === undefined ? {} : { spawn }),
  };
}

/** Packs an answer for the bus. */
export function encodeAskResult(result: AskResult): Uint8Array {
  return pack(result);
}

/** Unpacks and validates an answer; throws CorruptValueError. */
export function decodeAskResult(bytes: Uint8Array): AskResult {
  return decodeValue("answer", askResultSchema, bytes);
}
