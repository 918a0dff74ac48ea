import type { BlockList } from "node:net";

export type AddressFamily = "ipv4" | "ipv6";
export function normalized(address: string): string;
export function family(address: string): AddressFamily | undefined;
export function parseRange(entry: string): { address: string; bits: number | undefined; kind: AddressFamily } | undefined;
export function rangeListOf(entries: readonly string[]): BlockList;
/** `address` normalized (normalized()). */
export function inRangeList(list: BlockList, address: string): boolean;
