import { z } from "zod";

/** A request id: unique within a session, chosen by the client (the SDK counts up from 1). */
export const requestIdSchema = z
  .number()
  .int()
  .min(0)
  .max(2 ** 53 - 1);
