/** ops/fuzz/: `foyer fuzz` — random and mutated frames at the front door, beside honest bots. */
export { runFuzz, fuzzFailed, badFrameCategories, type FuzzOptions, type FuzzSummary } from "./run-fuzz.ts";
export { AnswerLedger, owedFor, knownCloseCodes, type Owed, type LedgerTally } from "./answer-ledger.ts";
export { HonestPair, viewMatches, type LobbyModel } from "./honest-pairs.ts";
export { exampleFrames, clientFrameTypes } from "./example-frames.ts";
