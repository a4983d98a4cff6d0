import { unpack } from "msgpackr";
import { z } from "zod";
import { CorruptValueError } from "../corrupt-value-error.ts";

/** Unpacks msgpack bytes and validates them with `schema`; throws CorruptValueError on either failure. */
export function decodeValue<T extends z.ZodType>(what: string, schema: T, bytes: Uint8Array): z.output<T> {
  let raw: unknown;
  try {
    raw = unpack(bytes);
  } catch (error) {
    throw new CorruptValueError(what, `${what}: not msgpack (${bytes.length} bytes)`, { cause: error });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new CorruptValueError(what, `${what}: ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  }
  return parsed.data;
}
