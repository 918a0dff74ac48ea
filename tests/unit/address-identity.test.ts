import { describe, expect, it } from "vitest";
import { addressIdentity } from "../../lib/http/address-identity.mjs";
import { callerKey } from "../../lib/mcp/policy/rate-limit";

/**
 * Which part of an anonymous client's address its limits count under (lib/http/address-identity.mjs):
 * an IPv4 address whole, an IPv6 address by its /64 — one end site holds a whole /64 and picks its
 * interface identifiers itself, so a key per /128 would be 2^64 budgets for one client.
 */
describe("addressIdentity", () => {
  it("keeps an IPv4 address whole", () => {
    expect(addressIdentity("203.0.113.7")).toBe("203.0.113.7");
    expect(addressIdentity("203.0.113.8")).toBe("203.0.113.8");
  });

  it("keys IPv6 by its /64, whatever the interface identifier or the spelling", () => {
    const prefix = "2001:db8:1:2::/64";
    for (const address of ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:DB8:0001:0002:0:0:0:3", "2001:db8:1:2:a:b:192.0.2.1", "2001:db8:1:2::1%eth0"]) {
      expect(addressIdentity(address), address).toBe(prefix);
    }
    // A neighbouring /64 is another client.
    expect(addressIdentity("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressIdentity("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressIdentity("::1")).toBe("0:0:0:0::/64");
  });

  it("keys an IPv4-mapped IPv6 address as the IPv4 client it carries, in either spelling", () => {
    expect(addressIdentity("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressIdentity("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(addressIdentity("::FFFF:CB00:7108")).toBe("203.0.113.8");
  });

  it("leaves anything that is not an address as it is (no trusted source: one shared key)", () => {
    expect(addressIdentity("unknown")).toBe("unknown");
    expect(addressIdentity("")).toBe("");
  });

  it("answers the same address alike when it is asked again (the last answer is remembered)", () => {
    expect(addressIdentity("2001:db8:5:6::1")).toBe("2001:db8:5:6::/64");
    expect(addressIdentity("2001:db8:5:6::1")).toBe("2001:db8:5:6::/64");
    expect(addressIdentity("2001:db8:5:7::1")).toBe("2001:db8:5:7::/64");
  });
});

describe("callerKey", () => {
  it("counts anonymous IPv6 callers per /64 and IPv4 callers per address; a token's subject whatever the address", () => {
    expect(callerKey("2001:db8:1:2::1", undefined)).toBe(callerKey("2001:db8:1:2::beef", undefined));
    expect(callerKey("2001:db8:1:2::1", undefined)).toBe("ip:2001:db8:1:2::/64");
    expect(callerKey("2001:db8:1:2::1", undefined)).not.toBe(callerKey("2001:db8:1:3::1", undefined));
    expect(callerKey("198.51.100.1", undefined)).toBe("ip:198.51.100.1");
    expect(callerKey("198.51.100.1", undefined)).not.toBe(callerKey("198.51.100.2", undefined));
    expect(callerKey("2001:db8:1:2::1", { subject: "alice", scopes: [], token: "t" })).toBe("sub:alice");
  });
});
