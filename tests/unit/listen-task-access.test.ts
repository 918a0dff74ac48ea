import { describe, expect, it } from "vitest";
import { LocalNotificationHub } from "../../lib/mcp/cluster/notification-hub";
import { listenResponse, type Listener } from "../../lib/mcp/transport/stateless/listen";

/**
 * A task's status notification carries the tool's result (SEP-2663 §task status notifications):
 * a listen stream hears it only if its token could read the task with tasks/get — the task's
 * owner, and the scopes of the task's tool (policy/task-access.ts). The stream is real; the hub
 * is the in-process one every instance has.
 */
const listener = (mayReachTask: boolean): Listener => ({ subject: "dave", taskOwner: "subject:dave", tasksOffered: true, tasks: true, mayRead: () => true, mayReachTask: () => mayReachTask });

async function heard(mayReachTask: boolean): Promise<string> {
  const hub = new LocalNotificationHub();
  const response = listenResponse("l-1", { notifications: { taskIds: ["t-1"] } }, hub, 60_000, 60_000, listener(mayReachTask), (r) => r);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  hub.publish({ kind: "task_status", owner: "subject:dave", tool: "export_world", task: { taskId: "t-1", status: "completed", result: { content: [{ type: "text", text: "SECRET" }] } } });
  // Another owner's task of the same id is never heard either.
  hub.publish({ kind: "task_status", owner: "subject:erin", tool: "export_world", task: { taskId: "t-1", status: "completed" } });
  let text = "";
  const deadline = Date.now() + 500;
  while (Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
    if (!next || next.done) break;
    text += next.value;
  }
  await reader.cancel();
  return text;
}

describe("task status on a listen stream", () => {
  it("reaches a token that may read the task, and not one without the tool's scopes", async () => {
    expect(await heard(true)).toContain("SECRET");
    const refused = await heard(false);
    expect(refused).toContain("notifications/subscriptions/acknowledged");
    expect(refused).not.toContain("SECRET");
    expect(refused).not.toContain("notifications/tasks");
  });
});

describe("taskIds on a listen stream of a server without tasks (MCP_TASKS=0)", () => {
  const offered = (tasksOffered: boolean, declared: boolean): Listener => ({ ...listener(true), tasksOffered, tasks: tasksOffered && declared });

  it("are left out of what the server agrees to, not refused with a capability the client did declare", async () => {
    // subscriptions §acknowledgment: notification types the server does not support are omitted (outside audit, 2026-11-27).
    const response = listenResponse("l-2", { notifications: { taskIds: ["t-1"], toolsListChanged: true } }, new LocalNotificationHub(), 60_000, 60_000, offered(false, true), (r) => r);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    await reader.cancel();
    expect(first.value).toContain("notifications/subscriptions/acknowledged");
    expect(first.value).toContain("toolsListChanged");
    expect(first.value).not.toContain("taskIds");
  });

  it("a server with tasks still needs the client to declare the extension (-32021)", () => {
    expect(() => listenResponse("l-3", { notifications: { taskIds: ["t-1"] } }, new LocalNotificationHub(), 60_000, 60_000, offered(true, false), (r) => r)).toThrow(/Missing required client capability/);
  });
});
