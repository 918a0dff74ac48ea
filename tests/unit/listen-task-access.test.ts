import { describe, expect, it } from "vitest";
import { LocalNotificationHub } from "../../lib/mcp/cluster/notification-hub";
import { listenResponse, type Listener } from "../../lib/mcp/transport/stateless/listen";

/**
 * A task's status notification carries the tool's result (SEP-2663 §task status notifications):
 * a listen stream hears it only if its token could read the task with tasks/get — the task's
 * owner, and the scopes of the task's tool (policy/task-access.ts). The stream is real; the hub
 * is the in-process one every instance has.
 */
const listener = (mayReachTask: boolean): Listener => ({ subject: "dave", taskOwner: "subject:dave", tasks: true, mayRead: () => true, mayReachTask: () => mayReachTask });

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
