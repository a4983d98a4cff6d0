import type { BotOpKind, ConnectionEvent, HeardFrame, OpRecord, SnapshotWrite } from "./chaos-journal.ts";
import { groupBy } from "./group-by.ts";

/** How long a member may take to hear a change of its lobby (default of `auditHearing`). */
export const hearWithinMs = 10_000;

/** A lobby change the owner persisted: its stamp, when the audit saw it written, and who it lists. */
interface Change {
  readonly key: string;
  readonly epoch: number;
  readonly seq: number;
  /**
   * The first sequence number of the batch that wrote it (one past the key's write before, in the same
   * epoch): an owner stamps each push of a batch with the next number, so a batch that sends each
   * player its own frame (an activity's transfers) tells each one at a number of its own.
   */
  readonly fromSeq: number;
  readonly at: number;
  readonly members: readonly { readonly player: string; readonly connected: boolean }[];
}

/** What the hearing audit found, and on how many (change, member) pairs it looked. */
export interface HearingReport {
  readonly unheardChanges: readonly string[];
  readonly checked: number;
}

/**
 * "Every member of a lobby hears each of its changes within N s, from its current owner." A change is a
 * lobby snapshot write whose sequence number moved on (the owner pushed frames in that batch) and whose
 * shown state differs from the key's write before it. Each member the written state lists as connected
 * must hear, within `withinMs` of the write, a frame of the key stamped in that batch (epoch, and a
 * sequence number past the key's write before) or later:
 * frames are whole states, so a later one carries the change, and a frame of an older epoch (an owner
 * that lost the key) does not count. A member is not held to it when its bot was not connected through
 * the whole window (a drop, a fault: it hears the lobby again on its resume), or when it was moving to
 * another lobby meanwhile (a create, or a join or leave of another lobby overlapping the window: the
 * gateway drops the frames of a lobby the player left behind). A leave of this lobby is no excuse: the
 * change lists the member, so it was pushed to it before the leave was answered. A member that stayed connected and heard
 * nothing is the silence this counts: a join answered during a move whose member was never told `moved`.
 */
export function auditHearing(
  writes: readonly SnapshotWrite[],
  heard: readonly HeardFrame[],
  connections: readonly ConnectionEvent[],
  ops: readonly OpRecord[],
  withinMs = hearWithinMs,
): HearingReport {
  const changes = lobbyChanges(writes);
  const end = lastMoment(heard, writes);
  const heardBy = groupBy(heard, (h) => `${h.bot} ${h.key}`);
  const connectionsOf = groupBy(connections, (c) => c.bot);
  const opsOf = groupBy(ops, (op) => op.bot);
  const unheard: string[] = [];
  let checked = 0;
  for (const change of changes) {
    const until = change.at + withinMs;
    if (until > end) continue; // the run ended before the member's time was up
    for (const member of change.members) {
      if (!member.connected) continue;
      const bot = member.player;
      if (!connectedThrough(connectionsOf.get(bot) ?? [], change.at, until)) continue;
      if (movingElsewhere(opsOf.get(bot) ?? [], change, until)) continue;
      checked++;
      const frames = heardBy.get(`${bot} ${change.key}`) ?? [];
      if (frames.some((f) => f.at <= until && atOrAfter(f, change))) continue;
      const last = frames.filter((f) => f.at <= until).at(-1);
      unheard.push(
        `${bot} ${change.key}: change ${change.epoch}/${change.seq} not heard within ${withinMs} ms` +
          (last === undefined ? " (nothing heard of it)" : ` (last heard ${last.epoch}/${last.seq})`),
      );
    }
  }
  return { unheardChanges: unheard, checked };
}

/**
 * The lobby writes that changed what members see, each with the members it lists. A change written
 * while its batch creates children (a start's room) is sent only once they are stored: its window opens
 * at the key's next write, the one its owner makes without them just before sending its frames.
 */
function lobbyChanges(writes: readonly SnapshotWrite[]): Change[] {
  const last = new Map<string, { epoch: number; seq: number; digest: string }>();
  const changes: Change[] = [];
  /** Per key, the index of its change whose frames wait for its batch's children. */
  const held = new Map<string, number>();
  for (const write of writes) {
    const waiting = held.get(write.key);
    if (waiting !== undefined && write.at !== undefined) {
      const change = changes[waiting];
      if (change !== undefined) changes[waiting] = { ...change, at: write.at };
      held.delete(write.key);
    }
    if (write.epoch === null || write.seq === null || !write.lobby || write.at === undefined) {
      last.delete(write.key); // a delete or a tombstone starts the key afresh
      continue;
    }
    const before = last.get(write.key);
    last.set(write.key, { epoch: write.epoch, seq: write.seq, digest: write.lobby.digest });
    if (before !== undefined && (write.seq <= before.seq || write.lobby.digest === before.digest)) continue;
    if (write.spawning === true) held.set(write.key, changes.length);
    changes.push({
      key: write.key,
      epoch: write.epoch,
      seq: write.seq,
      fromSeq: before?.epoch === write.epoch ? before.seq + 1 : write.seq,
      at: write.at,
      members: write.lobby.members,
    });
  }
  return changes;
}

/** True when the bot's last connection event before `from` connected it, and none after it until `until`. */
function connectedThrough(events: readonly ConnectionEvent[], from: number, until: number): boolean {
  let connected = false;
  for (const event of events) {
    if (event.at <= from) connected = event.connected;
    else if (event.at <= until && !event.connected) return false;
  }
  return connected;
}

/** Requests that take a player into a lobby (a search: into a matched one), wherever it was. */
const entering = new Set<BotOpKind>(["create", "findLobby", "cancelSearch"]);
/** Requests that move it between lobbies: a way out of the change's own lobby is no excuse. */
const switching = new Set<BotOpKind>([
  "join",
  "quickJoin",
  "joinActivity",
  "leave",
  "leaveActivity",
  "leaveMatched",
]);

/** True when the bot was entering or leaving a lobby other than the change's during its window. */
function movingElsewhere(ops: readonly OpRecord[], change: Change, until: number): boolean {
  // Requests name a private lobby by its code, an activity or matched lobby by its key.
  const code = change.key.startsWith("lobby/") ? change.key.slice("lobby/".length) : change.key;
  return ops.some(
    (op) =>
      (entering.has(op.kind) || (switching.has(op.kind) && op.code !== code)) &&
      op.sentAt <= until &&
      op.endedAt + 1_000 >= change.at,
  );
}

/** The last moment the journal saw anything (a loop: a run hears too many frames to spread them). */
function lastMoment(heard: readonly HeardFrame[], writes: readonly SnapshotWrite[]): number {
  let end = 0;
  for (const frame of heard) end = Math.max(end, frame.at);
  for (const write of writes) end = Math.max(end, write.at ?? 0);
  return end;
}

function atOrAfter(frame: HeardFrame, change: Change): boolean {
  return frame.epoch > change.epoch || (frame.epoch === change.epoch && frame.seq >= change.fromSeq);
}
