import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ErrorCodes } from "../../actors/runtime/index.ts";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { serverFrameSchema } from "../../gateway/protocol/server-frames.ts";
import { endMarker, renderProtocolReference, startMarker } from "../../ops/docs/protocol-reference.ts";

/** docs/protocol.md cannot drift from the wire: its reference is generated, its prose names everything. */

const doc = readFileSync(new URL("../../docs/protocol.md", import.meta.url), "utf8");
const start = doc.indexOf(startMarker);
const end = doc.indexOf(endMarker);
const generated = start >= 0 && end > start ? doc.slice(start, end + endMarker.length) : "";
/** Everything outside the generated block: what people wrote. */
const prose = doc.slice(0, Math.max(start, 0)) + doc.slice(end < 0 ? doc.length : end + endMarker.length);

describe("docs/protocol.md", () => {
  it("has exactly one generated reference block", () => {
    expect(doc.split(startMarker)).toHaveLength(2);
    expect(doc.split(endMarker)).toHaveLength(2);
    expect(start).toBeLessThan(end);
  });

  it("has a generated reference equal to renderProtocolReference()", () => {
    expect(
      generated,
      "the reference in docs/protocol.md is out of date with the zod schemas: run `npm run docs`",
    ).toBe(renderProtocolReference());
  });

  interface Typed {
    shape: { type: { value: string } };
  }
  // A frame type with variants of its own (`activity`, on `event`) is a union whose options share the type.
  const frameTypes = (union: { options: readonly (Typed | { options: readonly Typed[] })[] }) => [
    ...new Set(
      union.options
        .flatMap((option) => ("shape" in option ? [option] : option.options))
        .map((o) => o.shape.type.value),
    ),
  ];
  const named: [string, string[]][] = [
    ["client frame", frameTypes(clientFrameSchema)],
    ["server frame", frameTypes(serverFrameSchema)],
    ["error code", Object.keys(ErrorCodes)],
    ["close code", Object.keys(CloseCodes)],
  ];

  for (const [what, names] of named) {
    it(`names every ${what} in its prose, outside the generated reference`, () => {
      expect(names.length).toBeGreaterThan(0);
      const missing = names.filter((name) => !prose.includes(`\`${name}\``));
      expect(missing, `docs/protocol.md: describe these ${what}s in the prose, as \`name\``).toEqual([]);
    });
  }
});
