// Prisma's schema engine compiled to WebAssembly, driven through a driver adapter.
//
// The native engine cannot be downloaded on our machines; the wasm build is the same Rust code
// (migrations, diff, history diagnostics) and writes `_prisma_migrations` exactly as the native
// engine does. The package's own entry does `import * as wasm from "./schema_engine_bg.wasm"`,
// which Node 20 cannot load without --experimental-wasm-modules, so we instantiate the module
// ourselves and hand it to the wasm-bindgen glue, as that entry would.
import { readFile } from "node:fs/promises";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const glueUrl = import.meta.resolve("@prisma/schema-engine-wasm/schema_engine_bg");

let gluePromise;

/** Instantiates the wasm module once per process and returns the wasm-bindgen glue. */
function loadGlue() {
  gluePromise ??= (async () => {
    const glue = await import(glueUrl);
    const bytes = await readFile(new URL("schema_engine_bg.wasm", glueUrl));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": glue });
    glue.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
    return glue;
  })();
  return gluePromise;
}

/**
 * A SchemaEngine bound to `adapterFactory` (a SqlMigrationAwareDriverAdapterFactory: it must
 * also open the shadow database used to replay migrations for `create` and `diff`).
 * @param {{ schemaPath: string, schema: string, adapterFactory: object, log?: (line: string) => void }} options
 */
export async function openSchemaEngine({ schemaPath, schema, adapterFactory, log }) {
  const glue = await loadGlue();
  // The engine reports tracing as JSON lines; they are only interesting when debugging.
  const onLog = log ?? (() => {});
  return glue.SchemaEngine.new(
    { datamodels: [[schemaPath, schema]] },
    onLog,
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  );
}

export async function schemaEngineVersion() {
  return (await loadGlue()).version();
}
