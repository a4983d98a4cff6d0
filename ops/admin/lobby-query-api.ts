import { z } from "zod";
import { QueryError, checkQuery, queryFieldsSchema } from "../../fleet/listings/index.ts";
import type { LobbyListings } from "../../gateway/index.ts";

/**
 * `POST /api/v1/lobbies/query` of the server API (docs/server-api.md): the studio's backend reads the
 * fleet's public lobbies with the query language of the `queryLobbies` frame (docs/lobbies-query.md) —
 * the same filters, order, limit and cursor, the same checks and the same messages — answered from the
 * node's own index of every public lobby. Reads only: nothing is changed, whatever the body.
 */

/** The body: a `queryLobbies` frame's query fields. */
export const queryLobbiesBodySchema = z.strictObject({ ...queryFieldsSchema });

/** What the route answers (the server API's answer shape). */
export interface QueryApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

function refusedInvalid(message: string): QueryApiAnswer {
  return { status: 400, body: { error: { code: "INVALID", message } } };
}

/** One page of the fleet's public lobbies: `200 { lobbies, cursor }`, or `400 INVALID` naming what is wrong. */
export function queryLobbiesAnswer(listings: LobbyListings | undefined, raw: unknown): QueryApiAnswer {
  const parsed = queryLobbiesBodySchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    return refusedInvalid(`${where}${issue?.message ?? "invalid body"}`);
  }
  if (listings === undefined) return refusedInvalid("this node answers no lobby queries");
  try {
    const page = listings.index.query(checkQuery(parsed.data, listings.indexed));
    return { status: 200, body: { lobbies: page.lobbies, cursor: page.cursor } };
  } catch (error) {
    if (error instanceof QueryError) return refusedInvalid(error.message);
    throw error;
  }
}
