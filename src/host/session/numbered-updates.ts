// A worker event as the numbered updates it shows. An event that shows a log entry (it carries the entry's number)
// takes the entry's next event id, so a replay of the log numbers it the same; any other is numbered after the last
// update. A compaction is shown two ways (compaction updates, or the notice a client without them sees instead),
// numbered once.
import type { EventClock } from "../../protocol/event-id.js";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { Numbering, ShownUpdate } from "../attach/shown-update.js";
import { toSessionUpdates } from "./updates.js";

export function numberedUpdates(event: WorkerEvent, clock: EventClock, outbox: Numbering): ShownUpdate[] {
  const seq = "seq" in event ? event.seq : undefined;
  const next = () => (seq === undefined ? clock.transient() : clock.entry(seq));
  if (event.type !== "compaction") {
    const echo = event.type === "user_message";
    return toSessionUpdates(event, { compaction: false }).map((update) => outbox.number(update, next(), "all", echo));
  }
  const full = toSessionUpdates(event, { compaction: true }).map((update) =>
    outbox.number(update, next(), "compaction", false),
  );
  const last = full.at(-1)?.position ?? clock.last;
  const plain = toSessionUpdates(event, { compaction: false }).map((update) =>
    outbox.number(update, last, "plain", false),
  );
  return [...full, ...plain];
}
