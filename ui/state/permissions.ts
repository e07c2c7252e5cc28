// The host's permission questions to this page (it is a controller): each waits for a click; the host withdraws one
// ($/cancel_request, which aborts its signal) once another controller answered it or the turn ended.
import type { JsonRpcId, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";

export interface PendingPermission {
  requestId: JsonRpcId;
  request: RequestPermissionRequest;
  answer(optionId: string): void;
}

export class Permissions {
  readonly pending: PendingPermission[] = [];
  readonly #changed: () => void;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /** Rejects with the withdrawal's reason (the SDK answers the host "cancelled") once `withdrawn` aborts. */
  ask(
    requestId: JsonRpcId,
    request: RequestPermissionRequest,
    withdrawn: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    return new Promise((resolve, reject) => {
      const withdraw = () => {
        this.#remove(entry);
        reject(withdrawn.reason);
      };
      const entry: PendingPermission = {
        requestId,
        request,
        answer: (optionId) => {
          withdrawn.removeEventListener("abort", withdraw);
          this.#remove(entry);
          resolve({ outcome: { outcome: "selected", optionId } });
        },
      };
      if (withdrawn.aborted) return reject(withdrawn.reason);
      withdrawn.addEventListener("abort", withdraw, { once: true });
      this.pending.push(entry);
      this.#changed();
    });
  }

  #remove(entry: PendingPermission): void {
    const index = this.pending.indexOf(entry);
    if (index >= 0) this.pending.splice(index, 1);
    this.#changed();
  }
}
