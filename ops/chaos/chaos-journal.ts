/**
 * The lobby requests chaos bots send (`reconnect` drops the socket; the SDK resumes by itself). `kick`
 * always bans; `lock` sets the lock to `arg`.
 */
export const botOpKinds = [
  "create",
  "join",
  "ready",
  "leave",
  "makeHost",
  "start",
  "return",
  "finish",
  "reconnect",
  "quickJoin",
  "setLobbyData",
  "setMemberData",
  "chat",
  "kick",
  "lock",
  "joinActivity",
  "activityReady",
  "leaveActivity",
  "findLobby",
  "cancelSearch",
  "matchedReady",
  "leaveMatched",
  "enterRoom",
  "leaveRoom",
  // Not sent: another bot's acked or unknown kick of this one, copied to its list by the audit (opsByBot).
  "kicked",
] as const;
export type BotOpKind = (typeof botOpKinds)[number];

/**
 * How a request ended: `acked` (the SDK call resolved), `refused` (a final error: nothing changed),
 * `unknown` (a timeout or the client closing: it may or may not have been applied).
 */
export type OpOutcome = "acked" | "refused" | "unknown";

/** One request a bot sent, with its acknowledgement. */
export interface OpRecord {
  readonly id: number;
  readonly bot: string;
  readonly kind: BotOpKind;
  /** join: the code asked for; create: the code answered; others: the bot's lobby when it sent it. */
  readonly code: string | null;
  /** ready, lock: the flag; makeHost: the new host; kick: the player banned; joinActivity, findLobby: what. */
  readonly arg: boolean | string | null;
  /** setLobbyData, setMemberData: the key set, its value, the `ifVersion` asked for. */
  readonly data?: DataChange;
  /** The lobby version the change answered (setLobbyData, setMemberData, kick, lock), when acked. */
  readonly version?: number | null;
  readonly sentAt: number;
  readonly endedAt: number;
  readonly outcome: OpOutcome;
  readonly error: string | null;
}

/** One data key a bot set; every value is unique to its request (`bot#op`). */
export interface DataChange {
  readonly key: string;
  readonly value: string;
  readonly ifVersion: number | null;
}

/** What a lobby frame said, in the fields the audit reads. */
export interface LobbyFacts {
  readonly code: string;
  readonly host: string | null;
  readonly members: readonly {
    readonly player: string;
    readonly ready: boolean;
    readonly connected: boolean;
  }[];
}

/** A frame about a key that a bot's socket received, before the SDK's epoch filter. */
export interface HeardFrame {
  readonly bot: string;
  readonly key: string;
  readonly epoch: number;
  readonly seq: number;
  /** The frame's content without its stamp: two owners speaking at one (epoch, seq) differ here. */
  readonly digest: string;
  readonly at: number;
  /**
   * Which of the bot's sockets heard it (numbered as they open). A bot moving over after a drain holds
   * two, each in order on its own; across them one owner's frames may interleave (direct and relayed).
   */
  readonly socket?: number;
  /** For lobby frames: who is in it and who hosts, for SPEC §1's order rules. */
  readonly lobby: LobbyFacts | null;
}

/** A bot's connection changing: `node` is the node that welcomed it. */
export interface ConnectionEvent {
  readonly bot: string;
  readonly at: number;
  readonly connected: boolean;
  readonly node: string | null;
}

/** A fault as it was applied. */
export interface AppliedFault {
  readonly kind: "kill" | "stop" | "natsKill" | "drain";
  /** `n2` for a node, `nats-3` for a nats-server. */
  readonly target: string;
  readonly at: number;
  /** false for a drain the node refused or cannot do yet (501). */
  readonly applied: boolean;
  readonly note: string;
}

/** A snapshot write seen on the `lobbies` bucket, in revision order. */
export interface SnapshotWrite {
  readonly key: string;
  readonly revision: number;
  /** null for a delete or a value that is not a snapshot (a tombstone). */
  readonly epoch: number | null;
  readonly seq: number | null;
  /** When the audit's watch saw it (wall ms). */
  readonly at?: number;
  /** A lobby snapshot's members and what its frames would show, for "every member hears each change". */
  readonly lobby?: WrittenLobby | null;
  /**
   * The snapshot records children its batch is creating (a start's room): the batch's frames wait until
   * each is stored or failed, and the owner writes the key again without them before it sends them.
   */
  readonly spawning?: boolean;
}

/** The part of a written lobby state its members hear. */
export interface WrittenLobby {
  readonly members: readonly { readonly player: string; readonly connected: boolean }[];
  /** What a lobby frame of this state shows (members, flags, host, room): equal digests, no change. */
  readonly digest: string;
  /** The stored lobby's data, door and bans, for the data audit (absent on a state that holds none). */
  readonly stored?: StoredLobbyData;
}

/** A stored lobby in the fields the data audit reads. */
export interface StoredLobbyData {
  readonly version: number;
  /** Lobby data: key → value. */
  readonly data: Readonly<Record<string, unknown>>;
  /** Each member's own data, by player. */
  readonly memberData: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly maxMembers: number;
  readonly locked: boolean;
  readonly banned: readonly string[];
}

/** What one bot looked like after the cluster settled. */
export interface FinalView {
  readonly bot: string;
  readonly connected: boolean;
  /** The bot closed its client itself (it gave up): never stranded by the cluster. */
  readonly closed: boolean;
  readonly lobby: (LobbyFacts & { readonly epoch: number; readonly seq: number }) | null;
}

/** Everything a run recorded, for the audit. */
export interface ChaosJournal {
  readonly ops: OpRecord[];
  readonly heard: HeardFrame[];
  readonly connections: ConnectionEvent[];
  readonly faults: AppliedFault[];
  readonly writes: SnapshotWrite[];
}

/** An empty journal. */
export function emptyJournal(): ChaosJournal {
  return { ops: [], heard: [], connections: [], faults: [], writes: [] };
}
