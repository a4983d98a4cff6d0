import { z } from "zod";

/** The schemas the settings tables share: each reads an environment variable's or a flag's text. */

/** A whole number in [min, max], from its text. */
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** "true"/"false"/"1"/"0"/"yes"/"no" → boolean (z.coerce.boolean would read "false" as true). */
export const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

/** A comma-separated list, blanks trimmed and empty items dropped. */
export const list = z.string().transform((s) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== ""),
);
