import { readFileSync } from "node:fs";
import type { z } from "zod";

/** A JSON settings file (activities, lobby types), validated by its zod schema. */

/** The file's checked content, or why it was refused: unreadable, not JSON, or the first zod issue. */
export type JsonFileResult<T> = { ok: true; value: T } | { ok: false; why: string };

/** Reads and validates a JSON file; `fallback` (validated alike) when `path` is undefined. Never throws. */
export function readJsonFile<S extends z.ZodType>(
  path: string | undefined,
  schema: S,
  fallback: unknown,
): JsonFileResult<z.output<S>> {
  let raw: unknown = fallback;
  if (path !== undefined) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      return { ok: false, why: `cannot read the file: ${(error as Error).message}` };
    }
    try {
      raw = JSON.parse(text) as unknown;
    } catch (error) {
      return { ok: false, why: `not JSON: ${(error as Error).message}` };
    }
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, why: `${at}${issue?.message ?? "invalid"}` };
}
