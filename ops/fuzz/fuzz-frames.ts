import { Packr } from "msgpackr";
import type { Random } from "../../actors/runtime/index.ts";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import { exampleFrames } from "./example-frames.ts";

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/** One WebSocket message the fuzzer sends: bytes in a binary message or text in a text one. */
export interface FuzzMessage {
  readonly data: Uint8Array | string;
  /** Which mutation made it (for the tally). */
  readonly kind: string;
}

/** What a fuzz connection knows of the others: honest lobby codes and player ids, other fuzzers' resume tokens. */
export interface FuzzIntel {
  readonly honestCodes: Set<string>;
  readonly honestPlayers: readonly string[];
  readonly resumeTokens: string[];
}

const types = Object.keys(exampleFrames).filter((t) => t !== "hello");

function pick<T>(random: Random, items: readonly T[]): T {
  return items[random.int(items.length)] as T;
}

function randomString(random: Random, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(32 + random.int(0x2fff));
  return s;
}

/** Values of every type, and the edge values of each: a field gets one of these instead of its own. */
function wrongValue(random: Random, intel: FuzzIntel): unknown {
  switch (random.int(22)) {
    case 0:
      return null;
    case 1:
      return -1;
    case 2:
      return 1.5;
    case 3:
      return 2 ** 53;
    case 4:
      return Number.MAX_VALUE;
    case 5:
      return -(2 ** 63);
    case 6:
      return "";
    case 7:
      return randomString(random, 1 + random.int(40));
    case 8:
      return "x".repeat(200 + random.int(5000));
    case 9:
      return true;
    case 10:
      return [];
    case 11:
      return [1, "a", null, { b: [] }];
    case 12:
      return {};
    case 13:
      return { __proto__: { polluted: true }, constructor: "x", toString: 1 };
    case 14:
      return pick(random, intel.honestPlayers.length ? intel.honestPlayers : ["dev-alice"]);
    case 15:
      return pick(random, [...intel.honestCodes, "AB12CD"]);
    case 16:
      return random.int(1000);
    case 17:
      return new Uint8Array(random.int(64));
    case 18:
      return "\u0000\ud800\uffff";
    case 19:
      return { nested: { deeper: { deepest: [[[[[]]]]] } } };
    case 20:
      return Array.from({ length: 50 + random.int(500) }, (_, i) => i);
    default:
      return " " + pick(random, [...intel.honestCodes, "ab12cd"]).toLowerCase() + " ";
  }
}

/** An id: mostly the connection's own next one, else out of order, reused, another player's, or wrong. */
function idFor(random: Random, next: () => number): unknown {
  const roll = random.int(100);
  if (roll < 70) return next();
  if (roll < 80) return 1 + random.int(40); // the small ids the honest bots use (and its own, reused)
  if (roll < 88) return random.int(2 ** 31) * 4096; // out of order, far ahead
  return pick(random, [-1, 0.5, "7", null, 2 ** 53, Number.NaN, [1], { id: 1 }, true]);
}

function clone(frame: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return structuredClone(frame) as Record<string, unknown>;
}

/** A frame from an example with one (or a few) of its fields made wrong, or removed, or one added. */
function mutatedFrame(random: Random, intel: FuzzIntel, next: () => number): Record<string, unknown> {
  const frame = clone(exampleFrames[pick(random, types)] ?? {});
  if ("id" in frame) frame.id = idFor(random, next);
  const mutations = 1 + (random.int(4) === 0 ? random.int(3) : 0);
  for (let m = 0; m < mutations; m++) {
    const keys = Object.keys(frame);
    const key = pick(random, keys);
    const roll = random.int(10);
    if (roll < 6) {
      const value = frame[key];
      // Into a nested map or array now and then, so inner fields get wrong values too.
      if (typeof value === "object" && value !== null && random.int(2) === 0) {
        const inner = value as Record<string, unknown>;
        const innerKeys = Object.keys(inner);
        if (innerKeys.length) inner[pick(random, innerKeys)] = wrongValue(random, intel);
        else inner.extra = wrongValue(random, intel);
      } else frame[key] = wrongValue(random, intel);
    } else if (roll < 8) {
      delete frame[key];
    } else {
      frame[pick(random, ["player", "epoch", "session", "seq", "key", "host", "memberId", "__proto__"])] =
        wrongValue(random, intel);
    }
  }
  return frame;
}

/** A valid frame (with the connection's own ids), as a real client would send. */
function validFrame(random: Random, next: () => number): Record<string, unknown> {
  const frame = clone(exampleFrames[pick(random, types)] ?? {});
  if ("id" in frame) frame.id = next();
  if (frame.type === "ping") frame.t = random.int(1_000_000);
  return frame;
}

function encode(frame: unknown, json: boolean): Uint8Array | string {
  if (json) {
    try {
      return JSON.stringify(frame) ?? "null";
    } catch {
      return "{";
    }
  }
  return packr.pack(frame);
}

function randomBytes(random: Random, n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = random.int(256);
  return bytes;
}

/**
 * A frame that must not let a fuzz player into an honest lobby: a valid `join` of an honest code is a
 * real player joining (not a bad frame), so its code is replaced by one no lobby has.
 */
function keepOutOfHonestLobbies(frame: unknown, intel: FuzzIntel): unknown {
  const parsed = clientFrameSchema.safeParse(frame);
  if (!parsed.success || parsed.data.type !== "join") return frame;
  if (!intel.honestCodes.has(parsed.data.code.trim().toUpperCase())) return frame;
  return { ...(frame as object), code: "NOPE00" };
}

/**
 * The next message of a fuzz connection that has said hello. `maxFrameBytes` sizes the oversized ones;
 * `hello` is a valid hello of this connection (sent twice on purpose now and then).
 */
export function nextFuzzMessage(
  random: Random,
  intel: FuzzIntel,
  next: () => number,
  maxFrameBytes: number,
  hello: Record<string, unknown>,
): FuzzMessage {
  const json = random.int(5) === 0;
  const roll = random.int(1000);
  if (roll < 500)
    return {
      data: encode(keepOutOfHonestLobbies(mutatedFrame(random, intel, next), intel), json),
      kind: "mutated",
    };
  if (roll < 620)
    return { data: encode(keepOutOfHonestLobbies(validFrame(random, next), intel), json), kind: "valid" };
  if (roll < 680) {
    const shapes: unknown[] = [
      [],
      [1, 2],
      42,
      "hello",
      null,
      true,
      -1.5,
      { type: 7 },
      { id: next() },
      { type: "nope", id: next() },
      { type: null },
      {},
      [{ type: "ping", t: 1 }],
    ];
    return { data: encode(pick(random, shapes), json), kind: "wrong-shape" };
  }
  if (roll < 760) {
    const whole = packr.pack(mutatedFrame(random, intel, next));
    return { data: whole.subarray(0, random.int(Math.max(1, whole.byteLength))), kind: "truncated" };
  }
  if (roll < 830) return { data: randomBytes(random, random.int(300)), kind: "binary-garbage" };
  if (roll < 900) {
    const texts = [
      randomString(random, random.int(200)),
      '{"type":"join","id":',
      '{"type":"ready","id":3,"ready":true',
      "[1,2,3]",
      "null",
      '{"type":"ping","t":1e400}',
      `{"type":"join","id":${String(next())},"code":"AB12CD","code":"X"}`,
      '{"__proto__":{"type":"leave"},"id":5}',
      "",
      "\u0000",
    ];
    return { data: pick(random, texts), kind: "json-garbage" };
  }
  if (roll < 950) return { data: encode(hello, json), kind: "hello-twice" };
  if (roll < 953) {
    // Many frames in a row, to meet the rate limiter.
    return { data: encode(validFrame(random, next), json), kind: "burst" };
  }
  if (roll >= 958) {
    return {
      data: encode(keepOutOfHonestLobbies(mutatedFrame(random, intel, next), intel), json),
      kind: "mutated",
    };
  }
  const size = maxFrameBytes + 1 + random.int(maxFrameBytes);
  if (json)
    return {
      data: JSON.stringify({ type: "chat", id: next(), channel: "all", text: "y".repeat(size) }),
      kind: "oversized",
    };
  return { data: packr.pack({ type: "command", id: next(), data: "z".repeat(size) }), kind: "oversized" };
}

/** A first frame that is not a usable hello, and the close it is owed. */
export function badFirstFrame(random: Random, goodToken: string, badToken: string): FuzzMessage {
  const json = random.int(3) === 0;
  switch (random.int(6)) {
    case 0:
      return { data: encode({ type: "join", id: 1, code: "AB12CD" }, json), kind: "before-hello" };
    case 1:
      return {
        data: encode({ type: "hello", protocol: 99, token: goodToken }, json),
        kind: "hello-protocol",
      };
    case 2:
      return { data: encode({ type: "hello", protocol: 1, token: badToken }, json), kind: "hello-bad-token" };
    case 3:
      return { data: randomBytes(random, random.int(100)), kind: "before-hello-garbage" };
    case 4:
      return {
        data: encode({ type: "hello", protocol: "1", token: goodToken, extra: 1 }, json),
        kind: "hello-mutated",
      };
    default:
      return { data: encode({ type: "ping", t: 1 }, json), kind: "before-hello-ping" };
  }
}
