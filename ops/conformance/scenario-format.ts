import { z } from "zod";

/**
 * The conformance scenario format (docs/conformance.md). Scenarios are JSON files in
 * `conformance/scenarios/`; `conformance/scenario.schema.json` is this schema exported with
 * `z.toJSONSchema` (`npm run docs` writes it; a unit test checks it is current), so a runner in another
 * language can validate a scenario without TypeScript.
 */

const clientName = z
  .string()
  .regex(/^[a-z][a-zA-Z0-9]*$/, "a client name is a lower-case letter, then letters and digits")
  .describe("the client's name in this scenario; `$<name>` stands for its player id");

/** A frame to send or to expect: a JSON object; strings starting with `$` are placeholders or variables. */
const framePattern = z
  .record(z.string(), z.unknown())
  .describe(
    "a frame as a JSON object; `$…` strings are placeholders and variables (see docs/conformance.md)",
  );

const stepBase = {
  client: clientName.describe("the client this step acts for or checks"),
  note: z.string().optional().describe("what the step shows, for people"),
};

const skipping = z
  .array(z.string())
  .optional()
  .describe("frame types that may arrive before the expected ones and are then discarded");

const timeoutMs = z
  .number()
  .int()
  .positive()
  .optional()
  .describe("how long to wait for the frames (default: the runner's, 5000 ms)");

export const connectStep = z
  .object({
    ...stepBase,
    connect: z.literal(true).describe("open a new WebSocket for the client (it must have none open)"),
    node: z
      .number()
      .int()
      .min(1)
      .max(9)
      .optional()
      .describe(
        "which node of the fleet to connect to: 1 (the default) is the first URL the runner was given",
      ),
    url: z
      .string()
      .optional()
      .describe("connect to this URL instead: a variable bound from a frame, like a redirect's `url`"),
  })
  .strict();

export const sendStep = z
  .object({
    ...stepBase,
    send: framePattern.describe("a frame to send in the run's encoding, variables substituted"),
    repeat: z.number().int().min(1).max(10_000).optional().describe("send the same frame this many times"),
  })
  .strict();

export const sendRawStep = z
  .object({
    ...stepBase,
    sendRaw: z
      .object({
        json: z.string().describe("the text message to send on a JSON run"),
        msgpack: z
          .string()
          .regex(/^([0-9a-f]{2})*$/)
          .describe("the binary message to send on a msgpack run, as lower-case hex"),
      })
      .strict()
      .describe("raw bytes that are not a valid frame (malformed input)"),
  })
  .strict();

export const expectStep = z
  .object({
    ...stepBase,
    expect: framePattern.describe("the next frame the client receives must match this pattern"),
    skipping,
    timeoutMs,
  })
  .strict();

export const expectAllStep = z
  .object({
    ...stepBase,
    expectAll: z
      .array(framePattern)
      .min(1)
      .describe("the next frames, as many as there are patterns, must match them in any order"),
    skipping,
    timeoutMs,
  })
  .strict();

export const expectNothingStep = z
  .object({
    ...stepBase,
    expectNothing: z
      .number()
      .int()
      .positive()
      .max(10_000)
      .describe("no frame may arrive for the client within this many milliseconds"),
  })
  .strict();

export const expectCloseStep = z
  .object({
    ...stepBase,
    expectClose: z
      .number()
      .int()
      .min(1000)
      .max(4999)
      .describe("the node closes the client's socket with this close code, with no frame unread before"),
    skipping,
    timeoutMs,
  })
  .strict();

export const closeStep = z
  .object({
    ...stepBase,
    close: z.literal(true).describe("the client closes its socket (code 1000) and waits until it is closed"),
  })
  .strict();

export const drainStep = z
  .object({
    ...stepBase,
    drain: z
      .number()
      .int()
      .min(1)
      .max(9)
      .describe(
        "drain this node of the run (POST /drain on its admin API, asked again while refused with 409): its keys " +
          "move to its peers, whose members are told `moved`, and the node leaves the fleet",
      ),
    timeoutMs,
  })
  .strict();

export const stepSchema = z.union([
  connectStep,
  sendStep,
  sendRawStep,
  expectStep,
  expectAllStep,
  expectNothingStep,
  expectCloseStep,
  closeStep,
  drainStep,
]);

export const scenarioSchema = z
  .object({
    $schema: z.string().optional(),
    name: z
      .string()
      .regex(/^[a-z0-9-]+$/)
      .describe("the scenario's name: its file name without .json"),
    description: z.string().describe("what the scenario asserts about the protocol"),
    nodes: z
      .number()
      .int()
      .min(1)
      .max(9)
      .optional()
      .describe(
        "how many nodes of one fleet the scenario needs (default 1); a runner given fewer URLs skips it",
      ),
    clients: z
      .record(clientName, z.object({ name: z.string().min(1).max(32).describe("display name in the token") }))
      .describe("the scenario's players; the runner gives each a fresh player id and a signed token"),
    steps: z.array(stepSchema).min(1),
  })
  .strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type Step = z.infer<typeof stepSchema>;

/** The JSON Schema of a scenario file, as written to conformance/scenario.schema.json. */
export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(scenarioSchema, { target: "draft-2020-12", io: "input" }),
    $id: "https://foyer.dev/conformance/scenario.schema.json",
    title: "Foyer protocol conformance scenario",
  };
}

/** The text of conformance/scenario.schema.json (formatted as prettier leaves it). */
export function schemaFileText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
