/** What `POST /drain` answers: 202 when the drain started, 409 with the reason when it was refused. */
export interface DrainAnswer {
  readonly accepted: boolean;
  readonly message: string;
}

/**
 * Starts draining the node; the node process supplies it when it can drain. Without one `POST /drain`
 * answers 501.
 */
export type DrainHook = () => Promise<DrainAnswer>;
