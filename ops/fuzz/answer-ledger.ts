import { Unpackr } from "msgpackr";
import { errorCodeList } from "../../actors/runtime/index.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";

/**
 * What the node owes each frame a fuzz connection sends (docs/protocol.md, "Requests and answers",
 * "Limits", "Close codes"), written down as the fuzzer checks it:
 *
 * - The first frame on a socket is owed a `welcome`, or a close with a known code (4000 for anything but
 *   a valid hello of a supported version, 4001 after an `UNAUTHORIZED` error for a bad token, 4009 when
 *   it is too large).
 * - A frame larger than `maxFrameBytes` is owed a close: 4009 (or ws's own 1009 past its `maxPayload`).
 * - After the welcome, every other frame is owed exactly one answer, `ping` included: if it decodes
 *   (msgpack in a binary message, JSON in a text one) to a map whose `id` is an integer in
 *   0 … 2^53 − 1, a `result` or an `error` carrying that id; otherwise an `error` without an id, or a
 *   `pong` for a valid ping (a rate-limited ping gets an id-less error instead).
 * - An `error` only counts when its `code` is one of the protocol's error codes.
 * - A close by the node with one of its close codes (or 1009) answers every frame still owed on that
 *   socket; any other close (1006: the node vanished) leaves them unanswered.
 * - A frame still owed when the socket was silent for the answer timeout is unanswered.
 */

const knownErrorCodes = new Set<string>(errorCodeList);
/** The node's close codes, and ws's own "message too big" past its maxPayload. */
export const knownCloseCodes = new Set<number>([...Object.values(CloseCodes).map((c) => c.code), 1009]);

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/** What one frame is owed. */
export type Owed = { kind: "welcome" } | { kind: "close" } | { kind: "id"; id: number } | { kind: "noId" };

/** The answer a frame sent after the welcome is owed (see above). */
export function owedFor(data: Uint8Array | string, maxFrameBytes: number): Owed {
  const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
  if (size > maxFrameBytes) return { kind: "close" };
  let raw: unknown;
  try {
    raw = typeof data === "string" ? JSON.parse(data) : unpackr.unpack(data);
  } catch {
    return { kind: "noId" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { kind: "noId" };
  const id = (raw as { id?: unknown }).id;
  if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) return { kind: "id", id };
  return { kind: "noId" };
}

/** The tallies of one socket's frames. */
export interface LedgerTally {
  readonly sent: number;
  readonly unanswered: number;
  /** Answers nobody was owed (an id never sent, a second answer), or errors with an unknown code. */
  readonly stray: number;
}

/**
 * One socket's ledger: frames owed an answer, answers received, the close. `settle()` says how many
 * frames are still owed; `finish()` counts them as unanswered.
 */
export class AnswerLedger {
  private readonly byId = new Map<number, number>();
  private noId = 0;
  private welcome = 0;
  private close = 0;
  private sentCount = 0;
  private strayCount = 0;
  private unansweredCount = 0;
  private closedWith: number | undefined;
  /** Error codes seen, by code. */
  readonly errorsByCode = new Map<string, number>();

  sent(owed: Owed): void {
    this.sentCount++;
    if (owed.kind === "id") this.byId.set(owed.id, (this.byId.get(owed.id) ?? 0) + 1);
    else if (owed.kind === "noId") this.noId++;
    else if (owed.kind === "welcome") this.welcome++;
    else this.close++;
  }

  /** A decoded frame from the node. */
  received(frame: unknown): void {
    if (typeof frame !== "object" || frame === null) {
      this.strayCount++;
      return;
    }
    const f = frame as { type?: unknown; id?: unknown; code?: unknown };
    if (f.type === "welcome") {
      if (this.welcome > 0) this.welcome--;
      else this.strayCount++;
      return;
    }
    if (f.type === "error") {
      const code = String(f.code);
      this.errorsByCode.set(code, (this.errorsByCode.get(code) ?? 0) + 1);
      if (!knownErrorCodes.has(code)) {
        this.strayCount++;
        return;
      }
      // A bad token at hello: an UNAUTHORIZED error, then the close that answers the hello.
      if (f.id === undefined && this.welcome > 0 && code === "UNAUTHORIZED") return;
    }
    if (f.type === "result" || f.type === "error") {
      if (typeof f.id === "number") this.take(f.id);
      else this.takeNoId();
      return;
    }
    if (f.type === "pong") this.takeNoId();
  }

  /** The socket closed with this code. */
  closed(code: number): void {
    this.closedWith = code;
    if (!knownCloseCodes.has(code)) return;
    this.byId.clear();
    this.noId = 0;
    this.welcome = 0;
    this.close = 0;
  }

  /** Frames still owed an answer. */
  owed(): number {
    let n = this.noId + this.welcome + this.close;
    for (const c of this.byId.values()) n += c;
    return n;
  }

  /** Whether the welcome is still owed. */
  awaitingWelcome(): boolean {
    return this.welcome > 0;
  }

  closeCode(): number | undefined {
    return this.closedWith;
  }

  /** Ends the ledger: what is still owed is unanswered. */
  finish(): LedgerTally {
    this.unansweredCount += this.owed();
    this.byId.clear();
    this.noId = 0;
    this.welcome = 0;
    this.close = 0;
    return { sent: this.sentCount, unanswered: this.unansweredCount, stray: this.strayCount };
  }

  private take(id: number): void {
    const c = this.byId.get(id) ?? 0;
    if (c === 0) {
      this.strayCount++;
      return;
    }
    if (c === 1) this.byId.delete(id);
    else this.byId.set(id, c - 1);
  }

  private takeNoId(): void {
    if (this.noId > 0) this.noId--;
    else this.strayCount++;
  }
}
