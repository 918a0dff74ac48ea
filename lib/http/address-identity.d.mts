export function addressIdentity(address: string): string;
