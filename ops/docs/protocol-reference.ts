import { z } from "zod";
import { ErrorCodes } from "../../actors/runtime/index.ts";
import { clientFrameSchema, CloseCodes, serverFrameSchema } from "../../gateway/index.ts";

/**
 * Renders the reference part of docs/protocol.md from the zod schemas, the error codes and the close
 * codes, so the document cannot drift from the wire: a test compares the two, `npm run docs` rewrites it.
 */

export const startMarker = "<!-- generated from the zod schemas by `npm run docs`; do not edit by hand -->";
export const endMarker = "<!-- end of generated reference -->";

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  additionalProperties?: JsonSchema | boolean;
  maxLength?: number;
  minLength?: number;
}

function typeOf(schema: JsonSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((e) => JSON.stringify(e)).join(" \\| ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeOf).join(" \\| ");
  if (schema.type === "array") return `${schema.items ? typeOf(schema.items) : "unknown"}[]`;
  if (schema.type === "object") {
    if (schema.properties) {
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties).map(
        ([name, s]) => `${name}${required.has(name) ? "" : "?"}: ${typeOf(s)}`,
      );
      return `{ ${fields.join(", ")} }`;
    }
    return "object";
  }
  if (Array.isArray(schema.type)) return schema.type.join(" \\| ");
  const limit = schema.maxLength === undefined ? "" : ` (≤ ${schema.maxLength})`;
  return `${schema.type ?? "any"}${limit}`;
}

function frameTable(union: z.ZodDiscriminatedUnion): string[] {
  const lines = ["| type | fields |", "|---|---|"];
  // A frame type with variants of its own (`activity`, on `event`) gets a row per variant.
  const options = union.options.flatMap((o) => (o instanceof z.ZodDiscriminatedUnion ? o.options : [o]));
  for (const option of options) {
    const json = z.toJSONSchema(option as z.ZodType, { unrepresentable: "any", io: "input" }) as JsonSchema;
    const required = new Set(json.required ?? []);
    const props = json.properties ?? {};
    const type = typeof props.type?.const === "string" ? props.type.const : "?";
    const fields = Object.entries(props)
      .filter(([name]) => name !== "type")
      .map(([name, s]) => `\`${name}${required.has(name) ? "" : "?"}\`: ${typeOf(s)}`);
    lines.push(`| \`${type}\` | ${fields.join("<br>") || "—"} |`);
  }
  return lines;
}

/** The generated reference: frames, error codes, close codes. */
export function renderProtocolReference(): string {
  const lines: string[] = [startMarker, "", "### Client frames", "", ...frameTable(clientFrameSchema)];
  lines.push("", "### Server frames", "", ...frameTable(serverFrameSchema));
  lines.push("", "### Error codes", "", "| code | retry | meaning |", "|---|---|---|");
  for (const [code, info] of Object.entries(ErrorCodes)) {
    lines.push(`| \`${code}\` | ${info.retryable ? "retryable" : "final"} | ${info.text} |`);
  }
  lines.push("", "### Close codes", "", "| code | name | meaning |", "|---|---|---|");
  for (const [name, info] of Object.entries(CloseCodes))
    lines.push(`| ${info.code} | \`${name}\` | ${info.text} |`);
  lines.push("", endMarker);
  return lines.join("\n");
}

/** Replaces the generated part of a protocol document with a fresh rendering. */
export function withFreshReference(doc: string): string {
  const start = doc.indexOf(startMarker);
  const end = doc.indexOf(endMarker);
  if (start < 0 || end < 0) throw new Error("docs/protocol.md has lost its generated-reference markers");
  return doc.slice(0, start) + renderProtocolReference() + doc.slice(end + endMarker.length);
}
