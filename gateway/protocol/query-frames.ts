import { z } from "zod";
import { metadataSchema } from "../../actors/lobby/lobby-metadata.ts";
import type { LobbyListing } from "../../actors/common/listing.ts";
import {
  maxFilters,
  queryFieldsSchema,
  queryFilterSchema,
  type FilterOp,
  type Scalar,
} from "../../actors/common/query-language.ts";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";

/**
 * The lobby queries' frames (docs/lobbies-query.md): `queryLobbies` reads the public lobbies of the whole
 * fleet from the node's index, `quickJoin` joins the best match or creates a lobby. Filters name a
 * built-in field or `data.<key>` of a key the node indexes (`--lobby-index`); the node checks each one
 * and refuses the frame INVALID, naming what is wrong, before anything is read or changed.
 */

export const queryLobbiesFrame = z
  .object({
    type: z.literal("queryLobbies"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    ...queryFieldsSchema,
  })
  .strict();

export const quickJoinFrame = z
  .object({
    type: z.literal("quickJoin"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    filters: z.array(queryFilterSchema).max(maxFilters).optional(),
    /** Which match is best (default: the fullest lobby first, so players gather). */
    order: queryFieldsSchema.order,
    /** When nothing matches: create a public lobby with this public data (as `create`'s metadata). */
    orCreate: z.object({ data: metadataSchema.optional() }).strict().optional(),
  })
  .strict();

/** The query frames, in the client frame union. */
export const queryClientFrames = [queryLobbiesFrame, quickJoinFrame] as const;

/** A `queryLobbies` frame. */
export type QueryLobbiesFrame = z.infer<typeof queryLobbiesFrame>;
/** A `quickJoin` frame. */
export type QuickJoinFrame = z.infer<typeof quickJoinFrame>;

/** One filter of a query: a field (built in, or `data.<key>`), an operator and its value (`in`: a list). */
export interface LobbyFilter {
  readonly field: string;
  readonly op: FilterOp;
  readonly value: Scalar | Scalar[];
}

/** What `queryLobbies` asks for. */
export interface QueryLobbiesOptions {
  readonly filters?: LobbyFilter[];
  readonly order?: { readonly field: string; readonly dir?: "asc" | "desc" };
  /** 1–100, 20 when not given. */
  readonly limit?: number;
  /** The previous page's `cursor`, for the next page. */
  readonly cursor?: string;
}

/** One public lobby of a query's answer. */
export type LobbyLine = Omit<LobbyListing, "type">;

/** A page of public lobbies, and the cursor of the next page (null on the last one). */
export interface QueryLobbiesAnswer {
  readonly lobbies: LobbyLine[];
  readonly cursor: string | null;
}

/** What `quickJoin` asks for. */
export interface QuickJoinOptions {
  readonly filters?: LobbyFilter[];
  readonly order?: { readonly field: string; readonly dir?: "asc" | "desc" };
  /** When nothing matches, create a public lobby with this public data. */
  readonly orCreate?: { readonly data?: Record<string, string | number | boolean> };
}
