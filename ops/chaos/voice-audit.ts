import type { HeardFrame, SnapshotWrite } from "./chaos-journal.ts";

/**
 * FLEET-PROTOCOL's "one voice per key" as clients heard it and as the `lobbies` bucket recorded it:
 * per bot and key, no frame of an older epoch after a newer one and no sequence number going back within
 * an epoch; across all bots, no two different lobby frames with one (key, epoch, seq); in the bucket, no
 * snapshot of an older epoch written after a newer one (a delete starts the key afresh).
 */
export function auditVoices(heard: readonly HeardFrame[], writes: readonly SnapshotWrite[]): string[] {
  const problems: string[] = [];
  // The newest epoch each bot heard of a key, on any of its sockets; and the last stamp on each socket.
  const newest = new Map<string, number>();
  const last = new Map<string, { epoch: number; seq: number }>();
  const said = new Map<string, { digest: string; bot: string }>();
  for (const frame of heard) {
    const id = `${frame.bot} ${frame.key}`;
    const epoch = newest.get(id);
    if (epoch !== undefined && frame.epoch < epoch) {
      problems.push(`${id}: epoch ${frame.epoch} (seq ${frame.seq}) heard after epoch ${epoch}`);
      continue;
    }
    // Within one owner's voice the order holds per socket: a bot moving over after a drain hears the
    // same owner on two (directly, and relayed through the node it is leaving), which may interleave.
    const onSocket = `${id} ${frame.socket ?? 0}`;
    const seen = last.get(onSocket);
    if (seen?.epoch === frame.epoch && frame.seq < seen.seq) {
      problems.push(`${id}: seq ${frame.seq} after ${seen.seq} in epoch ${frame.epoch}`);
      continue;
    }
    newest.set(id, frame.epoch);
    last.set(onSocket, { epoch: frame.epoch, seq: frame.seq });
    if (frame.lobby === null) continue;
    const stamp = `${frame.key} ${frame.epoch}/${frame.seq}`;
    const before = said.get(stamp);
    if (!before) said.set(stamp, { digest: frame.digest, bot: frame.bot });
    else if (before.digest !== frame.digest) {
      problems.push(`${stamp}: ${before.bot} and ${frame.bot} heard two different states`);
    }
  }
  const written = new Map<string, { epoch: number; seq: number; revision: number }>();
  for (const write of [...writes].sort((a, b) => a.revision - b.revision)) {
    if (write.epoch === null || write.seq === null) {
      written.delete(write.key);
      continue;
    }
    const before = written.get(write.key);
    if (before && write.epoch < before.epoch) {
      problems.push(
        `${write.key}: snapshot of epoch ${write.epoch} written at revision ${write.revision} after epoch ${before.epoch} (revision ${before.revision})`,
      );
    } else if (before?.epoch === write.epoch && write.seq < before.seq) {
      problems.push(`${write.key}: snapshot seq ${write.seq} after ${before.seq} in epoch ${write.epoch}`);
    }
    written.set(write.key, { epoch: write.epoch, seq: write.seq, revision: write.revision });
  }
  return problems;
}

/**
 * SPEC §1 as members saw each change: the host is a member; and from one change to the next (the next
 * sequence number of an epoch) members keep their relative order and, when the host is gone, the role goes
 * to the first connected member left, in join order.
 */
export function auditHeardOrder(heard: readonly HeardFrame[]): string[] {
  const problems: string[] = [];
  const last = new Map<string, HeardFrame>();
  for (const frame of heard) {
    const lobby = frame.lobby;
    if (lobby === null) continue;
    const players = lobby.members.map((m) => m.player);
    if (players.length > 0 && (lobby.host === null || !players.includes(lobby.host))) {
      problems.push(`${frame.key} ${frame.epoch}/${frame.seq}: host ${lobby.host ?? "none"} is not a member`);
    }
    const id = `${frame.bot} ${frame.key}`;
    const prev = last.get(id);
    const newer = !prev || frame.epoch > prev.epoch || (frame.epoch === prev.epoch && frame.seq > prev.seq);
    if (!newer) continue;
    last.set(id, frame);
    // Only one change apart: a member that was away for a while may have missed a leave and a rejoin.
    if (prev?.lobby == null || frame.epoch !== prev.epoch || frame.seq !== prev.seq + 1) continue;
    const before = prev.lobby.members.map((m) => m.player).filter((p) => players.includes(p));
    const after = players.filter((p) => before.includes(p));
    if (before.join() !== after.join()) {
      problems.push(
        `${frame.key} ${frame.epoch}/${frame.seq}: members reordered (${before.join()} → ${after.join()})`,
      );
    }
    const oldHost = prev.lobby.host;
    if (oldHost !== null && !players.includes(oldHost) && players.length > 0) {
      const next = lobby.members.find((m) => m.connected)?.player;
      if (next !== undefined && lobby.host !== next) {
        problems.push(
          `${frame.key} ${frame.epoch}/${frame.seq}: host ${oldHost} left, ${lobby.host ?? "none"} took over, not ${next}`,
        );
      }
    }
  }
  return problems;
}
