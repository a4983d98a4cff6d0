import { Unpackr } from "msgpackr";
import WebSocket from "ws";
import { AnswerLedger, type Owed } from "./answer-ledger.ts";
import type { FuzzMessage } from "./fuzz-frames.ts";
import { bump, type FuzzRunState } from "./fuzz-run-state.ts";

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/**
 * One fuzz socket to the node: what it sent, what each frame is owed (its ledger), and waits that end on
 * an answer, the close, or the run's answer timeout of silence.
 */
export class FuzzSocket {
  readonly ledger = new AnswerLedger();
  private readonly ws: WebSocket;
  private progress = performance.now();
  private wake: (() => void) | undefined;
  private closedFlag = false;
  /** Set by the hello: this socket presents another player's resume token. */
  foreignResume = false;

  constructor(
    private readonly run: FuzzRunState,
    readonly player: string,
  ) {
    this.ws = new WebSocket(run.url, { handshakeTimeout: 10_000 });
    this.ws.on("message", (data: Buffer, binary: boolean) => {
      this.received(data, binary);
    });
    this.ws.on("close", (code: number) => {
      this.closedFlag = true;
      this.ledger.closed(code);
      this.poke();
    });
    this.ws.on("error", () => undefined);
  }

  /** Whether the socket closed; a call, so checks after an await are not narrowed by those before it. */
  closed(): boolean {
    return this.closedFlag;
  }

  /** Resolves true once open, false when it closed before. */
  opened(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.ws.once("open", () => {
        resolve(true);
      });
      this.ws.once("close", () => {
        resolve(false);
      });
    });
  }

  /** Waits until `done`, the run's abort, or the answer timeout with no answer heard. */
  async waitUntil(done: () => boolean): Promise<void> {
    this.progress = performance.now();
    while (!done() && performance.now() - this.progress < this.run.answerTimeoutMs && !this.run.aborted) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    this.wake = undefined;
  }

  /** Sends a frame (while the socket is open) and notes what it is owed. */
  send(message: FuzzMessage, owed: Owed): void {
    if (this.closedFlag || this.ws.readyState !== WebSocket.OPEN) return;
    this.run.remaining--;
    this.run.sent++;
    bump(this.run.categories, message.category);
    this.ledger.sent(owed);
    this.ws.send(message.data, { binary: typeof message.data !== "string" });
  }

  /** Waits until every frame sent is answered; false when the socket went silent (or closed) instead. */
  async settled(): Promise<boolean> {
    await this.waitUntil(() => this.ledger.owed() === 0 || this.closed());
    return this.ledger.owed() === 0 && !this.closed();
  }

  /** Closes the socket (if the node did not) and waits for the close, at most 2 s. */
  async close(): Promise<void> {
    if (!this.closedFlag) this.ws.close(1000);
    await new Promise<void>((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) resolve();
      else
        this.ws.once("close", () => {
          resolve();
        });
      setTimeout(resolve, 2_000);
    });
  }

  private poke(): void {
    this.progress = performance.now();
    this.wake?.();
  }

  private received(data: Buffer, binary: boolean): void {
    const { run, player } = this;
    let frame: unknown;
    try {
      frame = binary ? unpackr.unpack(data) : JSON.parse(data.toString("utf8"));
    } catch {
      frame = undefined;
    }
    const f = frame as { type?: string; resume?: unknown; resumed?: unknown } | undefined;
    if (f?.type === "welcome") {
      if (typeof f.resume === "string" && run.intel.resumeTokens.length < 500) {
        run.intel.resumeTokens.push({ player, token: f.resume });
      }
      if (this.foreignResume && f.resumed === true) {
        run.hijacked++;
        if (run.samples.length < 10) run.samples.push(`${player} resumed another player's session`);
      }
    }
    this.ledger.received(frame);
    // Only answers count as progress: a room's turn frames every 100 ms must not hide a silent request.
    if (f?.type === "result" || f?.type === "error" || f?.type === "pong" || f?.type === "welcome")
      this.poke();
  }
}
