export const UNREAD_BODY_GRACE_MS: number;
export function installUnreadBodyClose(): void;
