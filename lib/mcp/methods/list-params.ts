import { z } from "zod";

export const CursorParams = z.looseObject({ cursor: z.string().max(64).optional() });
