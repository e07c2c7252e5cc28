// The host's permission questions to this page (it is a controller): each waits for a click; the host withdraws one
// ($/cancel_request) once another controller answered it or the turn ended.
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { RpcError } from "../acp/socket";

export interface PendingPermission {
  requestId: number | string;
  request: RequestPermissionRequest;
  answer(optionId: string): void;
}

export class Permissions {
  readonly pending: PendingPermission[] = [];
  readonly #changed: () => void;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  ask(requestId: number | string, request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    return new Promise((resolve, reject) => {
      const entry: PendingPermission = {
        requestId,
        request,
        answer: (optionId) => {
          this.#remove(entry);
          resolve({ outcome: { outcome: "selected", optionId } });
        },
      };
      this.#withdrawals.set(requestId, () => {
        this.#remove(entry);
        reject(new RpcError(-32800, "Request cancelled", null));
      });
      this.pending.push(entry);
      this.#changed();
    });
  }

  withdraw(requestId: number | string): void {
    this.#withdrawals.get(requestId)?.();
  }

  readonly #withdrawals = new Map<number | string, () => void>();

  #remove(entry: PendingPermission): void {
    const index = this.pending.indexOf(entry);
    if (index >= 0) this.pending.splice(index, 1);
    this.#withdrawals.delete(entry.requestId);
    this.#changed();
  }
}
