import { drawCode } from "../../actors/common/index.ts";
import type { ActorSystem, AskResult, Random, RequestId } from "../../actors/runtime/index.ts";
import type { Session } from "../sessions/index.ts";

/** How a create's codes are drawn: the alphabet, the length, and where the intent is recorded. */
export interface FreshCodeDeps {
  readonly system: ActorSystem;
  /** Cryptographic randomness for the codes. */
  readonly random: Random;
  readonly codeLength: number;
  readonly codeAlphabet: string;
  /** What the codes name, in the refusal when none is free ("lobby", "room"). */
  readonly what: string;
  /** How soon to try again when every code drawn was taken. */
  readonly retryAfterMs: number;
}

/**
 * What one code's attempt came to: the create's answer, or `taken` (another key holds the code: draw
 * again).
 */
export type CodeAttempt = AskResult | "taken";

/** A code to try, and whether the player's registry already held it (a retried create's first code). */
export interface DrawnCode {
  readonly code: string;
  readonly recordedBefore: boolean;
}

/** A code drawn this many times and taken every time: the code space is crowded. */
const maxCodeDraws = 8;

/**
 * Creates a key under a freshly drawn code, as lobby and room creates both do. The player's registry
 * records each code first (the create's intent), so a retried create — same session and request id —
 * gets the code its first attempt recorded (`recordedBefore`) instead of making a second key; a code
 * another key holds is replaced by a new draw. Request ids are unique within a session, so a room's
 * create never meets a lobby's.
 */
export async function createUnderFreshCode(
  deps: FreshCodeDeps,
  session: Session,
  request: RequestId,
  attempt: (drawn: DrawnCode) => Promise<CodeAttempt>,
): Promise<AskResult> {
  const registry = `player/${session.player}`;
  let intent: "beginCreate" | "replaceCreate" = "beginCreate";
  for (let draw = 0; draw < maxCodeDraws; draw++) {
    const proposed = drawCode(deps.random, deps.codeLength, deps.codeAlphabet);
    const recorded = await deps.system.ask(registry, {
      type: intent,
      session: request.session,
      id: request.id,
      code: proposed,
    });
    if (!recorded.ok) return recorded;
    const code = (recorded.value as { code: string }).code;
    const outcome = await attempt({ code, recordedBefore: code !== proposed });
    if (outcome !== "taken") return outcome;
    intent = "replaceCreate"; // the drawn code was taken by another key: draw again
  }
  return {
    ok: false,
    code: "UNAVAILABLE",
    message: `could not draw a free ${deps.what} code`,
    retryAfterMs: deps.retryAfterMs,
  };
}
