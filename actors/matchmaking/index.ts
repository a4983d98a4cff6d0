/** Rating matchmaking (SPEC §3, part 1): lobby types, step algorithms, matched lobbies and their queues. */
export {
  acceptPhaseSchema,
  findLobbyType,
  jsonObjectSchema,
  lobbyTypeIdSchema,
  lobbyTypeSchema,
  lobbyTypesFileSchema,
  startRulesSchema,
  teamCodeSchema,
  teamSchema,
} from "./lobby-type.ts";
export type {
  JsonObject,
  LobbyType,
  LobbyTypeInput,
  LobbyTypesFile,
  LobbyTypesFileInput,
  StartRules,
  Team,
} from "./lobby-type.ts";
export {
  alignedWindow,
  alignmentSchema,
  compoundAlgorithmSchema,
  admitter,
  passes,
  pingTier,
  rangeAt,
  rangeDistance,
  rangedAlgorithmSchema,
  stepAlgorithmSchema,
} from "./step-algorithm.ts";
export type { Alignment, Candidate, RatingWindow, Seeker, StepAlgorithm } from "./step-algorithm.ts";
export {
  chooseTeam,
  everyTeamAtMin,
  freeByTeam,
  isFull,
  isReady,
  meanRating,
  teamCounts,
} from "./lobby-rules.ts";
export {
  filterKey,
  lobbyTypeOfQueueKey,
  matchedLobbyKey,
  matchedLobbyKeySchema,
  queueKey,
} from "./matchmaking-keys.ts";
export { createMatchedLobby, matchedLobbyKind } from "./matched-lobby-kind.ts";
export { handleMatchedLobby, matchedLobbyIdle } from "./matched-lobby-machine.ts";
export {
  groupSchema,
  joinResultSchema,
  lobbyClosedSchema,
  lobbyStatusSchema,
  matchedLobbyInitSchema,
  matchedLobbyMessageSchema,
  parseMatchedLobbyMessage,
} from "./matched-lobby-messages.ts";
export type {
  Group,
  JoinResult,
  LobbyStatus,
  MatchedLobbyInit,
  MatchedLobbyMessage,
  MatchedLobbyMessageOf,
} from "./matched-lobby-messages.ts";
export { matchedLobbyOptionsSchema } from "./matched-lobby-options.ts";
export type {
  MatchedLobbyEnv,
  MatchedLobbyOptions,
  MatchedLobbyOptionsInput,
} from "./matched-lobby-options.ts";
export {
  lobbyPhaseSchema,
  matchedMemberSchema,
  timetableSchema,
  matchedLobbySchemaVersion,
  matchedLobbyStateSchema,
  upgradeMatchedLobbyState,
} from "./matched-lobby-state.ts";
export type {
  Accepting,
  LobbyPhase,
  MatchedLobbyState,
  MatchedMember,
  Timetable,
} from "./matched-lobby-state.ts";
export { matchedSeats, seatsFor, shouldStart } from "./matched-lobby-start.ts";
export { acceptTimerName, startRetryTimerName, timetableFrom } from "./matched-lobby-timers.ts";
export { createQueue, queueKind } from "./queue-kind.ts";
export { handleQueue, stepTimerName } from "./queue-machine.ts";
export {
  filterRequestSchema,
  filterVerdictSchema,
  parseQueueMessage,
  queueMessageSchema,
  queueRequestSchemas,
} from "./queue-messages.ts";
export type { FilterRequest, QueueMessage, QueueMessageOf, QueueRequestInput } from "./queue-messages.ts";
export { queueOptionsSchema } from "./queue-options.ts";
export type { QueueEnv, QueueOptions, QueueOptionsInput } from "./queue-options.ts";
export { candidatesFor, entryTimerName, joinFailMessage, regionFor } from "./queue-search.ts";
export { queueSchemaVersion, queueStateSchema, upgradeQueueState, waitingPlayers } from "./queue-state.ts";
export type { EntryStage, QueueEntry, QueueLobby, QueueMatch, QueueState } from "./queue-state.ts";
export { matchEntry, proposeMatch, searchOrder, takeOut } from "./queue-match.ts";
export { matchOfTimer, matchTimerName } from "./queue-match-room.ts";
export type { MatchCancelReason, MatchProposal } from "./queue-match.ts";
