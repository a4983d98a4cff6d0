import { Packr } from "msgpackr";
import { clientFrameSchema, type ClientFrame } from "./client-frames.ts";
import { serverFrameSchema, type ServerFrame } from "./server-frames.ts";

/** Plain maps and arrays only: no records, no extensions a browser client would not understand. */
const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/** A decoded frame, or the reason it was refused. */
export type Decoded<T> = { ok: true; frame: T } | { ok: false; message: string };

/** The encoding a connection uses: msgpack binary frames, or JSON text frames for debugging. */
export type Encoding = "msgpack" | "json";

/** Reads raw bytes or text into a plain value; throws on malformed input. */
function unpackRaw(data: Uint8Array | string): unknown {
  if (typeof data === "string") return JSON.parse(data) as unknown;
  return packr.unpack(data) as unknown;
}

function decodeWith<T>(
  schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: unknown[] } };
  },
  data: Uint8Array | string,
): Decoded<T> {
  let raw: unknown;
  try {
    raw = unpackRaw(data);
  } catch {
    return { ok: false, message: typeof data === "string" ? "malformed JSON" : "malformed msgpack" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, message: "a frame is a map with a type" };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, frame: parsed.data };
  return { ok: false, message: describeIssues(parsed.error.issues) };
}

/** Decodes and validates a frame from a client. Never throws. */
export function decodeClientFrame(data: Uint8Array | string): Decoded<ClientFrame> {
  return decodeWith(clientFrameSchema, data);
}

/** Decodes and validates a frame from a node (the SDK's side). Never throws. */
export function decodeServerFrame(data: Uint8Array | string): Decoded<ServerFrame> {
  return decodeWith(serverFrameSchema, data);
}

/** The frame types a node sends; `activity` is a union of its own (on `event`), so its first option names it. */
const serverFrameTypes = new Set<string>(
  serverFrameSchema.options.map((o) => ("shape" in o ? o.shape.type.value : o.options[0].shape.type.value)),
);

/**
 * Reads a frame from a node, checking only that it is an object with a known `type` (the SDK's fast
 * path; `decodeServerFrame` validates every field). Never throws.
 */
export function readServerFrame(data: Uint8Array | string): Decoded<ServerFrame> {
  let raw: unknown;
  try {
    raw = unpackRaw(data);
  } catch {
    return { ok: false, message: "malformed frame" };
  }
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !serverFrameTypes.has(type))
    return { ok: false, message: "unknown frame type" };
  return { ok: true, frame: raw as ServerFrame };
}

/** Encodes a frame for the wire in the connection's encoding. */
export function encodeFrame(frame: object, encoding: Encoding): Uint8Array | string {
  return encoding === "json" ? JSON.stringify(frame) : packr.pack(frame);
}

/** The request id of a frame that failed validation, when one can be read, so the error answers it. */
export function requestIdOf(data: Uint8Array | string): number | undefined {
  try {
    const raw = unpackRaw(data) as { id?: unknown } | null;
    return typeof raw?.id === "number" && Number.isSafeInteger(raw.id) && raw.id >= 0 ? raw.id : undefined;
  } catch {
    return undefined;
  }
}

function describeIssues(issues: unknown[]): string {
  const first = issues[0] as { path?: (string | number)[]; message?: string } | undefined;
  if (!first) return "invalid frame";
  const path = first.path?.length ? first.path.join(".") : "frame";
  return `${path}: ${first.message ?? "invalid"}`.slice(0, 200);
}
