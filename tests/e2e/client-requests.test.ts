/**
 * Server → client requests during a tool call (sampling, elicitation): the server asks on the
 * call's SSE stream, the SDK client answers with a separate POST, the tool finishes with the answer.
 */
import { describe, expect, inject, it } from "vitest";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CreateMessageRequest,
  type ElicitRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { connectClient, textOf } from "../support/sdk-client";

const fixtureUrl = () => `${inject("statefulUrl")}/api/conformance/mcp`;

describe("server → client requests", () => {
  it("sampling: the server's sampling/createMessage is answered by the client and the tool returns the client's text", async () => {
    const asked: CreateMessageRequest["params"][] = [];
    const { client } = await connectClient(fixtureUrl(), {
      capabilities: { sampling: {} },
      setup: (c) =>
        c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          asked.push(request.params);
          return { role: "assistant", content: { type: "text", text: "A city built on the back of a turtle." }, model: "e2e-model", stopReason: "endTurn" };
        }),
    });

    const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "Invent a capital city" } });

    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("LLM response: A city built on the back of a turtle.");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.messages).toEqual([{ role: "user", content: { type: "text", text: "Invent a capital city" } }]);
    expect(asked[0]?.maxTokens).toBe(100);
  });

  it("elicitation: the server's elicitation/create is answered by the client and the tool returns the content", async () => {
    const asked: ElicitRequest["params"][] = [];
    const { client } = await connectClient(fixtureUrl(), {
      capabilities: { elicitation: {} },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(request.params);
          return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
        }),
    });

    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });

    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toBe("Who are you?");
  });

  it("elicitation without the client's elicitation capability: the tool fails with an isError result naming the capability", async () => {
    const { client } = await connectClient(fixtureUrl(), { capabilities: {} });

    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });

    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/"elicitation" capability/);
  });
});
