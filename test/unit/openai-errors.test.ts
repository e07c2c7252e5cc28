// Which provider answers mean "the request does not fit the context window", and the limit they name.
import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { ContextOverflow } from "../../workers/models/model.js";
import { classify, isContextOverflow } from "../../workers/gateway/openai-errors.js";

const failure = (status: number, message: string, code: string | null = null) =>
  classify(
    APIError.generate(status, { error: { message, type: "invalid_request_error", code } }, undefined, new Headers()),
  );

describe("context overflow", () => {
  it("OpenAI's, DeepSeek's, vLLM's and llama.cpp's answers are overflows", () => {
    expect(
      isContextOverflow(
        failure(
          400,
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.",
          "context_length_exceeded",
        ),
      ),
    ).toBe(true);
    expect(
      isContextOverflow(
        failure(
          400,
          "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens (140000 in the messages, 0 in the completion).",
        ),
      ),
    ).toBe(true);
    expect(
      isContextOverflow(
        failure(400, "the request exceeds the available context size (n_ctx = 4096), try increasing it"),
      ),
    ).toBe(true);
  });

  it("other 400s and other statuses are not", () => {
    expect(isContextOverflow(failure(400, "Invalid value for 'tool_choice'"))).toBe(false);
    expect(isContextOverflow(failure(500, "maximum context length is 10 tokens"))).toBe(false);
  });

  it("the limit the provider names is read from its message", () => {
    expect(new ContextOverflow("HTTP 400: This model's maximum context length is 32768 tokens. However…").limit).toBe(
      32768,
    );
    expect(new ContextOverflow("HTTP 400: the request exceeds the available context size (n_ctx = 4096)").limit).toBe(
      4096,
    );
    expect(new ContextOverflow("HTTP 400: prompt is too long").limit).toBeNull();
  });
});
