// Driver adapters are class instances of packages that do not export their classes; to change
// one method we delegate the rest explicitly (the schema engine calls only these).

/**
 * @param {object} adapter a SqlDriverAdapter
 * @param {{ executeScript?: (script: string) => Promise<void>, dispose?: () => Promise<void> }} overrides
 */
export function delegateAdapter(adapter, overrides) {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    getConnectionInfo: () => adapter.getConnectionInfo?.() ?? {},
    dispose: () => adapter.dispose(),
    ...overrides,
  };
}
