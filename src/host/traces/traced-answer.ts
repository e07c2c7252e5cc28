// A prompt's answer with its turn's span ended by it: the stop reason, or the error it was answered with.
import type { TurnSpan } from "./host-tracing.js";

export function traced<T extends { stopReason: string } | { response: { stopReason: string } }>(
  answer: Promise<T>,
  span: TurnSpan,
): Promise<T> {
  return answer.then(
    (value) => {
      span.end({ stopReason: "response" in value ? value.response.stopReason : value.stopReason });
      return value;
    },
    (error: unknown) => {
      span.end({ error });
      throw error;
    },
  );
}
