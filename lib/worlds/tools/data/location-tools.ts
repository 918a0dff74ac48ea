import { z } from "zod";
import { defineTool } from "../../../mcp";
import { ownerOf } from "../../owner";
import * as locations from "../../data/locations";
import { narrate } from "../../i18n/narration";
import { locationRecord } from "../../records";
import { CREATES, Cursor, Id, Limit, LongText, Name, READ_ONLY, ShortText, WidgetKey, excerpt, fitPage, fitRecord, result } from "./shared";
import { LocationOutput, LocationPageOutput } from "./outputs";
import { READS, WRITES } from "../../scopes";
import { locationChanged } from "../../live-updates";
import { activityLog } from "./activity-log";

export const createLocation = defineTool({
  name: "create_location",
  title: "Create Location",
  description: "Add a location to one of your worlds, optionally inside another location of the same world.",
  input: z.object({
    worldId: Id.describe("The world the location is in"),
    name: Name.describe("Location name"),
    kind: ShortText.optional().describe("e.g. city, forest, tavern"),
    description: LongText.optional(),
    parentId: Id.optional().describe("A location of the same world that contains this one"),
  }),
  output: LocationOutput,
  annotations: CREATES,
  security: WRITES,
  ui: { invoking: "Creating location…", invoked: "Location created" },
  handler: async ({ worldId, ...input }, ctx) => {
    const l = await locations.createLocation(ownerOf(ctx), worldId, input);
    locationChanged(ctx, l);
    await activityLog.created(ctx, "location", l);
    return result(narrate(ctx).locationCreated(l.name, l.kind, l.id), { location: fitRecord(locationRecord(l), ["description"]) });
  },
});

export const listLocations = defineTool({
  name: "list_locations",
  title: "List Locations",
  description: "List the locations of a world, newest first, a page at a time; optionally by kind or parent location.",
  input: z.object({
    worldId: Id.describe("The world's id"),
    kind: ShortText.min(1).optional().describe("Only locations of this kind"),
    parentId: Id.optional().describe("Only locations inside this one"),
    cursor: Cursor,
    limit: Limit,
  }),
  output: LocationPageOutput,
  annotations: READ_ONLY,
  security: READS,
  ui: { invoking: "Listing locations…", invoked: "Locations listed" },
  handler: async ({ worldId, kind, parentId, cursor, limit }, ctx) => {
    const page = await locations.listLocations(ownerOf(ctx), worldId, { kind, parentId, cursor, limit });
    const { structured, count, hasMore } = fitPage(
      page,
      (l) => ({ id: l.id, name: l.name, kind: l.kind, parentId: l.parentId, summary: excerpt(l.description) }),
      (items, nextCursor) => ({ worldId, locations: items, ...(nextCursor ? { nextCursor } : {}) }),
    );
    return result(narrate(ctx).locations(count, hasMore), structured, { [WidgetKey.Query]: { worldId, kind, parentId, limit } });
  },
});

export const locationTools = [createLocation, listLocations];
