import type { ActorContext, Transition } from "../runtime/index.ts";
import { z } from "zod";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";

/** How matched lobbies behave on this node; every field has a default. */
export const matchedLobbyOptionsSchema = z.strictObject({
  roomCodeLength: z.number().int().min(4).max(16).default(6),
  roomCodeAlphabet: z.string().min(2).max(64).default("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
  /** How soon a start the node could not take (full, draining, spawn failed) is tried again. */
  startRetryMs: z.number().int().min(100).max(60_000).default(1000),
});

/** Matched lobby options with every field present. */
export type MatchedLobbyOptions = z.output<typeof matchedLobbyOptionsSchema>;

/** Matched lobby options as a caller may write them. */
export type MatchedLobbyOptionsInput = z.input<typeof matchedLobbyOptionsSchema>;

/** What a matched lobby handler reads besides its state and message. */
export interface MatchedLobbyEnv {
  readonly options: MatchedLobbyOptions;
  readonly ctx: ActorContext;
}

/** One matched lobby transition. */
export type LobbyStep = Transition<MatchedLobbyState>;
