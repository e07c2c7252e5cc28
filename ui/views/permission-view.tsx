// A permission the host asks this page (a controller): the tool call and its input as text, one button per option.
import type { PendingPermission } from "../state/permissions";
import { stripAnsi } from "../text/ansi";

export function PermissionView(props: { pending: PendingPermission }) {
  const { request } = props.pending;
  const input = request.toolCall.rawInput;
  return (
    <div class="permission" role="alert">
      <strong>Permission asked:</strong> <span>{stripAnsi(request.toolCall.title ?? request.toolCall.toolCallId)}</span>
      {input !== undefined && <pre>{stripAnsi(JSON.stringify(input, null, 2))}</pre>}
      <div class="options">
        {request.options.map((option) => (
          <button
            type="button"
            key={option.optionId}
            class={`permission-option option-${option.kind}`}
            data-option-id={option.optionId}
            onClick={() => props.pending.answer(option.optionId)}
          >
            {option.name}
          </button>
        ))}
      </div>
    </div>
  );
}
