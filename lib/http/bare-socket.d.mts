import type { Socket } from "node:net";

export function answerAndClose(socket: Socket, raw: string): void;
