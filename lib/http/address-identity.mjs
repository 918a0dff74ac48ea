import { family } from "../config/address-parse.mjs";

/** A client sends request after request from one address: the last answer is remembered. */
let lastAddress = "";
let lastIdentity = "";

/**
 * Which part of an anonymous client's address names it for limits. An IPv4 address is one
 * client. An IPv6 end site is given a whole /64 at least (RFC 6177, RFC 7934) and picks its
 * interface identifiers itself (temporary addresses, RFC 8981): keyed per /128, one client would
 * hold 2^64 budgets. So IPv6 is keyed by its /64 prefix, written `2001:db8:1:2::/64`. An
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`) is the IPv4 client it carries.
 * Anything else (UNKNOWN_ADDRESS) is its own identity. Plain JavaScript: the connection cap in
 * front of Next (connection-cap.mjs) keys sockets the same way, and it loads no TypeScript.
 */
export function addressIdentity(address) {
  if (address === lastAddress) return lastIdentity;
  const identity = family(address) === "ipv6" ? ipv6Identity(address) : address;
  lastAddress = address;
  lastIdentity = identity;
  return identity;
}

function ipv6Identity(address) {
  const groups = groupsOf(address);
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = groups;
  // ::ffff:0:0/96 (RFC 4291 §2.5.5.2): an IPv4 address, keyed whole like any other.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) return `${g >> 8}.${g & 255}.${h >> 8}.${h & 255}`;
  return `${[a, b, c, d].map((n) => n.toString(16)).join(":")}::/64`;
}

/** An IPv6 address (valid: `family` said so) as its eight 16-bit groups. */
function groupsOf(address) {
  // A zone (fe80::1%eth0) names the local interface, not part of the address.
  let text = address.split("%", 1)[0] ?? "";
  const tail = [];
  // The last 32 bits may be written as an IPv4 address (RFC 4291 §2.2, form 3).
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [, rest = "", w = "0", x = "0", y = "0", z = "0"] = dotted;
    tail.push((Number(w) << 8) | Number(x), (Number(y) << 8) | Number(z));
    text = rest.endsWith("::") ? rest : rest.slice(0, -1);
  }
  const [left = "", right] = text.split("::");
  const parse = (part) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const head = parse(left);
  const rear = [...(right === undefined ? [] : parse(right)), ...tail];
  const zeros = new Array(8 - head.length - rear.length).fill(0);
  return [...head, ...zeros, ...rear];
}
