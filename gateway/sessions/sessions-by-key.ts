import type { KeyIndex, Session } from "./session.ts";

/**
 * The registered sessions by each lobby, activity lobby and room they are in, kept by the sessions'
 * setters: a key that moves away finds its sessions without walking every session of the node (a drain
 * of 10,000 lobbies walked 10,000 sessions for each, and that was a third of the drained node's CPU).
 */
export class SessionsByKey implements KeyIndex {
  private readonly byKey = new Map<string, Set<Session>>();

  /** `entered` hears each key a registered session enters (not those it had when it was added). */
  constructor(private readonly entered: (session: Session, key: string) => void = () => undefined) {}

  /** The sessions in `key`. */
  of(key: string): readonly Session[] {
    const sessions = this.byKey.get(key);
    return sessions === undefined ? [] : [...sessions];
  }

  add(session: Session): void {
    for (const key of session.keys()) this.enter(session, key);
  }

  remove(session: Session): void {
    for (const key of session.keys()) this.leave(session, key);
  }

  /** One of the session's keys changed from `was` to `now`. */
  moved(session: Session, was: string | null, now: string | null): void {
    if (was === now) return;
    // Lobby, activity and room keys differ by their prefixes, so no other field of the session holds `was`.
    if (was !== null && !session.keys().includes(was)) this.leave(session, was);
    if (now === null) return;
    this.enter(session, now);
    this.entered(session, now);
  }

  private enter(session: Session, key: string): void {
    let sessions = this.byKey.get(key);
    if (sessions === undefined) this.byKey.set(key, (sessions = new Set()));
    sessions.add(session);
  }

  private leave(session: Session, key: string): void {
    const sessions = this.byKey.get(key);
    if (sessions === undefined) return;
    sessions.delete(session);
    if (sessions.size === 0) this.byKey.delete(key);
  }
}
