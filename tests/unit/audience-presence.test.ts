import { describe, expect, it } from "vitest";
import { AudiencePresence } from "../../lib/mcp/cluster/audience-presence";
import type { ClusterBus, ClusterMessage } from "../../lib/mcp/cluster/cluster";

/**
 * Who holds GET streams of an audience on other instances (tool events are published only then),
 * over an in-memory bus that delivers each instance's messages to every other one, as Redis does.
 */
function network() {
  const buses: { handlers: Set<(m: ClusterMessage) => void> }[] = [];
  return () => {
    const self = { handlers: new Set<(m: ClusterMessage) => void>() };
    buses.push(self);
    const bus: ClusterBus = {
      publish: (message) => {
        for (const other of buses) if (other !== self) for (const h of other.handlers) h(structuredClone(message));
      },
      subscribe: (handler) => {
        self.handlers.add(handler);
        return () => self.handlers.delete(handler);
      },
      joined: () => Promise.resolve(true),
    };
    return bus;
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("AudiencePresence", () => {
  it("knows nothing until the others had time to answer, then follows opens and closes elsewhere", async () => {
    let now = 1_000_000;
    const clock = () => now;
    const join = network();
    const a = new AudiencePresence(join(), clock);
    const b = new AudiencePresence(join(), clock);
    await tick();
    // Just joined: someone may listen.
    expect(b.mayListenElsewhere("sub:alice")).toBe(true);
    now += 1_001;
    expect(b.mayListenElsewhere("sub:alice")).toBe(false);
    a.opened("sub:alice");
    expect(b.mayListenElsewhere("sub:alice")).toBe(true);
    // Its own streams are not "elsewhere".
    expect(a.mayListenElsewhere("sub:alice")).toBe(false);
    a.closed("sub:alice");
    expect(b.mayListenElsewhere("sub:alice")).toBe(false);
  });

  it("an instance that joins later is told what the others hold", async () => {
    let now = 5_000_000;
    const clock = () => now;
    const join = network();
    const a = new AudiencePresence(join(), clock);
    a.opened("session:s1");
    const late = new AudiencePresence(join(), clock);
    await tick();
    now += 1_001;
    expect(late.mayListenElsewhere("session:s1")).toBe(true);
    expect(late.mayListenElsewhere("session:s2")).toBe(false);
    a.closed("session:s1");
  });

  it("an audience whose instance stops repeating it lapses with its lease (the instance died)", async () => {
    let now = 9_000_000;
    const clock = () => now;
    const join = network();
    const a = new AudiencePresence(join(), clock);
    const b = new AudiencePresence(join(), clock);
    await tick();
    now += 1_001;
    a.opened("sub:bob");
    now += 29_000;
    expect(b.mayListenElsewhere("sub:bob")).toBe(true);
    now += 2_000;
    expect(b.mayListenElsewhere("sub:bob")).toBe(false);
    a.closed("sub:bob");
  });

  it("a bus that never joined errs towards publishing", async () => {
    const bus: ClusterBus = { publish: () => undefined, subscribe: () => () => undefined, joined: () => Promise.resolve(false) };
    const p = new AudiencePresence(bus, () => 0);
    await tick();
    expect(p.mayListenElsewhere("sub:carol")).toBe(true);
  });
});
