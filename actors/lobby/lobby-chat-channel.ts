import { z } from "zod";

/** The lobby chat's channels, as the relay room's: every member, or the members of one's team. */
export const lobbyChatChannelSchema = z.enum(["all", "team"]);
