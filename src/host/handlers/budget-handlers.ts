// `_host/set_budget { sessionId, tokens?, costUsd? }` (docs/models.md, Budgets): the session's owner or controller, or
// the operator, sets its tree's budget; an amount not given stays as it was. The model gateway holds it against the
// tree's next request, so a session whose turn ended BUDGET_REACHED goes on at its next prompt once it is raised.
import type { AgentApp } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { SET_BUDGET_METHOD, type Budget } from "../../protocol/budget.js";
import type { Peer } from "../connection/peer.js";
import type { HandlerHost } from "./handler-host.js";
import { attachedSession, findVisible } from "./session-access.js";
import { unknownSession } from "../../request-errors.js";
import { amount } from "./budget-param.js";

const SetBudgetRequest = z.object({
  sessionId: z.string(),
  tokens: z.unknown().optional(),
  costUsd: z.unknown().optional(),
});

export function withBudgets(app: AgentApp, host: HandlerHost, peer: Peer): AgentApp {
  return app.onRequest(SET_BUDGET_METHOD, SetBudgetRequest, async ({ params }) => {
    const { sessionId } = params;
    const asked = { ...amount("tokens", params.tokens, "tokens"), ...amount("costUsd", params.costUsd, "costUsd") };
    let session;
    if (peer.operator) {
      session = findVisible(host.sessions, peer, sessionId);
      if (!session) throw unknownSession(sessionId);
    } else session = attachedSession(host.sessions, peer, sessionId);
    const tree = session.share.tree;
    const root = host.sessions.find(tree);
    const budget: Budget = {
      ...(root?.share.budget ?? session.share.budget ?? host.gateway?.budgetOf(tree)),
      ...asked,
    };
    // Kept by the tree's root, whose next worker tells the gateway again (a restarted gateway, a restored session).
    host.gateway?.budget(tree, budget);
    if (root) await root.setBudget(budget);
    host.logger.info({ sessionId, tree, budget, connection: peer.label }, "session budget set");
    return { budget };
  });
}
