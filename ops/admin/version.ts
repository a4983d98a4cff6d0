import { readFileSync } from "node:fs";
import { z } from "zod";

const packageSchema = z.object({ version: z.string() });

/** Foyer's version, from its package.json (read once: it does not change while the process runs). */
export const foyerVersion: string = packageSchema.parse(
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")),
).version;
