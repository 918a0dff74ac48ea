import { randomUUID } from "node:crypto";

/**
 * Open long-lived streams per caller in Redis, shared by every instance: a sorted set of stream
 * ids scored by when their lease ends. A stream that ends releases its id; an instance that dies
 * leaves ids that expire with their lease (streams never outlive it: they end at their maximum
 * lifetime), so a crash holds a caller's slots for at most that lease (310 s by default; docs/edge.md).
 */
export const ACQUIRE_SLOT = `
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[1])
if redis.call("ZCARD", KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call("ZADD", KEYS[1], ARGV[2], ARGV[3])
redis.call("PEXPIRE", KEYS[1], ARGV[5])
return 1
`;

/** The slots ACQUIRE_SLOT would count, read only: ids whose lease ends after ARGV[1] (now). */
export const OPEN_SLOTS = `return redis.call("ZCOUNT", KEYS[1], "(" .. ARGV[1], "+inf")`;

export interface SlotRedis {
  eval(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  zrem(key: string, member: string): Promise<unknown>;
}

/** Whether acquireSlot would grant a slot now; writes nothing (expired ids are left to the next acquire). `key`: the caller's set. */
export async function slotFree(redis: SlotRedis, key: string, max: number): Promise<boolean> {
  const open = await redis.eval(OPEN_SLOTS, [key], [Date.now()]);
  return Number(open) < max;
}

/** A slot in the caller's set `key` (the store names it, under its prefix), or undefined when all `max` are taken. */
export async function acquireSlot(redis: SlotRedis, key: string, max: number, leaseMs: number): Promise<(() => Promise<void>) | undefined> {
  const id = randomUUID();
  const now = Date.now();
  const granted = await redis.eval(ACQUIRE_SLOT, [key], [now, now + leaseMs, id, max, leaseMs]);
  if (Number(granted) !== 1) return undefined;
  return async () => {
    await redis.zrem(key, id);
  };
}
