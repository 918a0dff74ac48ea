-- WorldCrafter stores text in Unicode NFC (lib/worlds/single-line.ts, storedText): rows written
-- before that are brought to it, so "Café" typed on a keyboard finds a world imported as
-- "Cafe" + U+0301, and confirmName and the name lookups see one name. Only rows not yet in NFC
-- are touched; updatedAt is kept, as the text a person reads has not changed.
UPDATE "World"
SET "name" = normalize("name", NFC), "theme" = normalize("theme", NFC),
    "description" = normalize("description", NFC), "tone" = normalize("tone", NFC)
WHERE NOT ("name" IS NFC NORMALIZED AND "theme" IS NFC NORMALIZED
           AND "description" IS NFC NORMALIZED AND "tone" IS NFC NORMALIZED);

UPDATE "Character"
SET "name" = normalize("name", NFC), "role" = normalize("role", NFC),
    "backstory" = normalize("backstory", NFC),
    "traits" = ARRAY(SELECT normalize(t, NFC) FROM unnest("traits") WITH ORDINALITY AS u(t, n) ORDER BY n)
WHERE NOT ("name" IS NFC NORMALIZED AND "role" IS NFC NORMALIZED AND "backstory" IS NFC NORMALIZED)
   OR EXISTS (SELECT 1 FROM unnest("traits") AS u(t) WHERE t IS NOT NFC NORMALIZED);

UPDATE "Location"
SET "name" = normalize("name", NFC), "kind" = normalize("kind", NFC),
    "description" = normalize("description", NFC)
WHERE NOT ("name" IS NFC NORMALIZED AND "kind" IS NFC NORMALIZED AND "description" IS NFC NORMALIZED);
