import { Packr } from "msgpackr";
import type { Random } from "../../actors/runtime/index.ts";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import { exampleFrames } from "./example-frames.ts";

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/**
 * The kinds of bad frame the fuzzer sends, and the hello it starts each socket with:
 *
 * - `wrong-type`: a real frame with one field (walked through every field of every frame type, nested
 *   ones too) given a value of another type or an edge value, removed, or an unknown field added;
 * - `wrong-shape`: valid msgpack or JSON that is not a request map (an array, a number, a map without a
 *   type, an unknown type);
 * - `truncated`: a msgpack frame cut short;
 * - `oversized`: a frame past `maxFrameBytes`;
 * - `garbage`: random bytes, broken JSON text;
 * - `out-of-order`: frames each valid alone in an order no client sends (ready or start before any
 *   lobby, a second hello, request ids reused or far ahead);
 * - `foreign-ids`: other players' ids and lobby codes, other players' request ids and resume tokens;
 * - `flood`: hundreds of frames at once, to meet the rate limiter;
 * - `bad-hello`: a first frame that is not a usable hello (a request first, an unknown protocol, a forged
 *   token, garbage);
 * - `hello`: a socket's valid hello (not a bad frame; counted so the totals add up).
 */
export const fuzzCategories = [
  "wrong-type",
  "wrong-shape",
  "truncated",
  "oversized",
  "garbage",
  "out-of-order",
  "foreign-ids",
  "flood",
  "bad-hello",
] as const;

export type FuzzCategory = (typeof fuzzCategories)[number] | "hello";

/** One WebSocket message the fuzzer sends: bytes in a binary message or text in a text one. */
export interface FuzzMessage {
  readonly data: Uint8Array | string;
  readonly category: FuzzCategory;
}

/** A resume token a fuzz socket was given, and whose it is. */
export interface SeenResume {
  readonly player: string;
  readonly token: string;
}

/** What a fuzz connection knows of the others: honest lobby codes and player ids, other sockets' resume tokens. */
export interface FuzzIntel {
  readonly honestCodes: Set<string>;
  readonly honestPlayers: readonly string[];
  readonly resumeTokens: SeenResume[];
  /** The `type.field` paths that were given a wrong value, for the coverage figure. */
  readonly fieldsHit: Set<string>;
}

/** One field of one frame type: its path from the frame (`["algorithm", "ranges"]`). */
interface FieldPath {
  readonly type: string;
  readonly path: readonly string[];
}

const requestTypes = Object.keys(exampleFrames).filter((t) => t !== "hello");

/** Every field of every request frame, and the fields of the maps inside them (one level down). */
export const fuzzFields: readonly FieldPath[] = requestTypes.flatMap((type) => {
  const frame = exampleFrames[type] ?? {};
  return Object.keys(frame).flatMap((key) => {
    const value = frame[key];
    const inner =
      typeof value === "object" && value !== null
        ? Object.keys(value).map((k) => ({ type, path: [key, k] }))
        : [];
    return [{ type, path: [key] }, ...inner];
  });
});

/** How a field path is named in `fieldsHit`. */
export function fieldName(field: FieldPath): string {
  return `${field.type}.${field.path.join(".")}`;
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[random.int(items.length)] as T;
}

function randomString(random: Random, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(32 + random.int(0x2fff));
  return s;
}

/** A map with keys that trip naive code: an own `__proto__` key, `constructor`, `toString`. */
function pollutingMap(): Record<string, unknown> {
  return JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","toString":1}') as Record<
    string,
    unknown
  >;
}

/** Values of every type, and the edge values of each: a field gets one of these instead of its own. */
function wrongValue(random: Random): unknown {
  switch (random.int(21)) {
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
      return pollutingMap();
    case 14:
      return random.int(1000);
    case 15:
      return new Uint8Array(random.int(64));
    case 16:
      return "\u0000\ud800\uffff";
    case 17:
      return { nested: { deeper: { deepest: [[[[[]]]]] } } };
    case 18:
      return Array.from({ length: 50 + random.int(500) }, (_, i) => i);
    case 19:
      return Number.NaN;
    default:
      return -0;
  }
}

function clone(frame: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return structuredClone(frame);
}

/**
 * Sets (or, with `undefined`, removes) a field by path, as an own property even when it is `__proto__`.
 * It goes only into plain maps and arrays: a field an earlier mutation made a byte array stays one (a
 * map set as a byte array's element would throw here, in the fuzzer).
 */
export function setPath(frame: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let target: Record<string, unknown> = frame;
  for (const key of path.slice(0, -1)) {
    const inner: unknown = target[key];
    if (typeof inner !== "object" || inner === null) return;
    if (!Array.isArray(inner) && Object.getPrototypeOf(inner) !== Object.prototype) return;
    target = inner as Record<string, unknown>;
  }
  const last = path[path.length - 1] ?? "type";
  if (value === undefined) Reflect.deleteProperty(target, last);
  else Object.defineProperty(target, last, { value, enumerable: true, writable: true, configurable: true });
}

/** A fuzz connection's state: its own next request id and its place in the walk through every field. */
export interface FuzzCursor {
  nextId: number;
  field: number;
}

/**
 * A real frame with the cursor's field made wrong (another type, an edge value), removed, or an unknown
 * field added beside it; now and then a second field too.
 */
function wrongTypeFrame(random: Random, cursor: FuzzCursor, intel: FuzzIntel): Record<string, unknown> {
  const field = fuzzFields[cursor.field++ % fuzzFields.length] ?? { type: "join", path: ["code"] };
  const frame = clone(exampleFrames[field.type] ?? {});
  if ("id" in frame && field.path[0] !== "id") frame.id = cursor.nextId++;
  const roll = random.int(10);
  // A field no frame has made wrong yet is made wrong now: how many frames each connection sends, and so
  // how often the walks pass each field, depends on timing, and the run must cover every field.
  const name = fieldName(field);
  if (roll < 7 || !intel.fieldsHit.has(name)) {
    setPath(frame, field.path, wrongValue(random));
    intel.fieldsHit.add(name);
  } else if (roll < 9) setPath(frame, field.path, undefined);
  else {
    const extra = pick(random, ["player", "epoch", "session", "seq", "key", "host", "__proto__", "type "]);
    setPath(frame, [extra], wrongValue(random));
  }
  if (random.int(4) === 0) {
    const other = pick(
      random,
      fuzzFields.filter((f) => f.type === field.type),
    );
    setPath(frame, other.path, wrongValue(random));
  }
  return frame;
}

/** A valid frame of a random type with the connection's own next id, as a real client might send it. */
export function validFrame(random: Random, cursor: FuzzCursor): Record<string, unknown> {
  const frame = clone(exampleFrames[pick(random, requestTypes)] ?? {});
  if ("id" in frame) frame.id = cursor.nextId++;
  if (frame.type === "ping") frame.t = random.int(1_000_000);
  return frame;
}

/**
 * Picks from a list whose length depends on timing (codes seen so far) with exactly one draw whatever the
 * length, so a connection's later draws stay the same for a seed.
 */
function pickSeen<T>(random: Random, items: readonly T[], otherwise: T): T {
  const i = random.int(Math.max(1, items.length));
  return items[i] ?? otherwise;
}

/** A valid frame that names other players: their ids, their lobbies' codes, request ids they use. */
function foreignFrame(random: Random, cursor: FuzzCursor, intel: FuzzIntel): Record<string, unknown> {
  const player = pickSeen(random, intel.honestPlayers, "honest-0-host");
  const code = pickSeen(random, [...intel.honestCodes], "AB12CD");
  // The small ids honest bots use (each session counts from 1), or a far-ahead or reused own id.
  const id = pick(random, [1 + random.int(40), cursor.nextId++, cursor.nextId + 4096 * random.int(1000)]);
  switch (random.int(9)) {
    case 0:
      return { type: "makeHost", id, player };
    case 1:
      // A code as a sloppy client writes it: the node must not let it in either (see keepOutOfHonestLobbies).
      return { type: "join", id, code: ` ${code.toLowerCase()} ` };
    case 2:
      return { type: "joinRoom", id, code, side: random.int(3) };
    case 3:
      return { type: "matchedReady", id, lobby: `lobby/${code}`, ready: true };
    case 4:
      return { type: "leaveMatched", id, lobby: `lobby/${code}` };
    case 5:
      return { type: "acceptMatch", id, matchId: `${player}/${code}` };
    case 6:
      return { type: "ready", id, ready: random.int(2) === 0 };
    case 7:
      return { type: "leave", id };
    default:
      return { type: "profile", id, name: player };
  }
}

function encode(frame: unknown, json: boolean): Uint8Array | string {
  if (json) {
    try {
      // Every frame here is a map, an array or a plain value: JSON always says something.
      return JSON.stringify(frame);
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
 * A valid `join` of an honest lobby's code is a real player joining (not a bad frame: a game lets anyone
 * with the code in), so its code is replaced by one no lobby has. Codes are matched as the node reads
 * them (trimmed, upper case).
 */
export function keepOutOfHonestLobbies(frame: unknown, intel: FuzzIntel): unknown {
  const parsed = clientFrameSchema.safeParse(frame);
  if (!parsed.success || parsed.data.type !== "join") return frame;
  if (!intel.honestCodes.has(parsed.data.code.trim().toUpperCase())) return frame;
  return { ...(frame as object), code: "NOPE00" };
}

/**
 * The next message of a fuzz connection that has said hello. `maxFrameBytes` sizes the oversized ones;
 * `hello` is a valid hello of this connection (sent again now and then: out of order).
 */
export function nextFuzzMessage(
  random: Random,
  intel: FuzzIntel,
  cursor: FuzzCursor,
  maxFrameBytes: number,
  hello: Record<string, unknown>,
): FuzzMessage {
  const json = random.int(5) === 0;
  const roll = random.int(1000);
  const safe = (frame: unknown): Uint8Array | string => encode(keepOutOfHonestLobbies(frame, intel), json);
  if (roll < 450) return { data: safe(wrongTypeFrame(random, cursor, intel)), category: "wrong-type" };
  if (roll < 560) {
    const shapes: unknown[] = [
      [],
      [1, 2],
      42,
      "hello",
      null,
      true,
      -1.5,
      { type: 7 },
      { id: cursor.nextId++ },
      { type: "nope", id: cursor.nextId++ },
      { type: null },
      { type: ["join"], id: cursor.nextId++ },
      {},
      [{ type: "ping", t: 1 }],
    ];
    return { data: encode(pick(random, shapes), json), category: "wrong-shape" };
  }
  if (roll < 640) {
    const whole = packr.pack(validFrame(random, cursor));
    return { data: whole.subarray(0, random.int(Math.max(1, whole.byteLength))), category: "truncated" };
  }
  if (roll < 700) return { data: randomBytes(random, random.int(300)), category: "garbage" };
  if (roll < 740) {
    const texts = [
      randomString(random, random.int(200)),
      '{"type":"join","id":',
      '{"type":"ready","id":3,"ready":true',
      "[1,2,3]",
      "null",
      '{"type":"ping","t":1e400}',
      `{"type":"join","id":${String(cursor.nextId++)},"code":"AB12CD","code":"X"}`,
      '{"__proto__":{"type":"leave"},"id":5}',
      "",
      "\u0000",
    ];
    return { data: pick(random, texts), category: "garbage" };
  }
  if (roll < 860) {
    if (random.int(6) === 0) return { data: encode(hello, json), category: "out-of-order" };
    const frame = validFrame(random, cursor);
    // Now and then with an id reused or far ahead of the connection's own.
    if ("id" in frame && random.int(4) === 0) {
      frame.id =
        random.int(2) === 0 ? Math.max(0, cursor.nextId - 1 - random.int(5)) : cursor.nextId + 100_000;
    }
    return { data: safe(frame), category: "out-of-order" };
  }
  // The last 1 %: too large (it ends the socket, so rarer would mean longer lives, not more coverage).
  if (roll < 990) return { data: safe(foreignFrame(random, cursor, intel)), category: "foreign-ids" };
  const size = maxFrameBytes + 1 + random.int(maxFrameBytes);
  if (json)
    return {
      data: JSON.stringify({ type: "chat", id: cursor.nextId++, channel: "all", text: "y".repeat(size) }),
      category: "oversized",
    };
  return {
    data: packr.pack({ type: "command", id: cursor.nextId++, data: "z".repeat(size) }),
    category: "oversized",
  };
}

/** A first frame that is not a usable hello (each is owed a close with a code). */
export function badFirstFrame(random: Random, goodToken: string, badToken: string): FuzzMessage {
  const json = random.int(3) === 0;
  const data = ((): Uint8Array | string => {
    switch (random.int(7)) {
      case 0:
        return encode({ type: "join", id: 1, code: "AB12CD" }, json);
      case 1:
        return encode({ type: "hello", protocol: 99, token: goodToken }, json);
      case 2:
        return encode({ type: "hello", protocol: 1, token: badToken }, json);
      case 3:
        return randomBytes(random, random.int(100));
      case 4:
        return encode({ type: "hello", protocol: "1", token: goodToken, extra: 1 }, json);
      case 5:
        return encode({ type: "hello", protocol: 1, token: goodToken.slice(0, -2) }, json);
      default:
        return encode({ type: "ping", t: 1 }, json);
    }
  })();
  return { data, category: "bad-hello" };
}
