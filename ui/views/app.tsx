// The page: sign-in until a token opens a connection, then the host at a glance, the sessions, or one session.
import { useEffect, useState } from "preact/hooks";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { HostConnection, RefusedError } from "../acp/host-connection";
import { hostStatus } from "../acp/host-api";
import { tokenStore } from "../state/token-store";
import { parseRoute, type Route } from "../state/route";
import { SignIn } from "./sign-in";
import { Glance } from "./glance";
import { SessionsList } from "./sessions-list";
import { SessionLive } from "./session-live";

type Access =
  | { state: "signed-out"; error: string | null }
  | { state: "connecting" }
  /** operator: the token may read the host's figures; a tenant's lands on its sessions instead. */
  | { state: "ready"; connection: HostConnection; operator: boolean };

function describe(error: unknown): string {
  if (error instanceof RefusedError) return "The host refused this token.";
  if (error instanceof RequestError) return `The host answered: ${error.message}`;
  return String(error);
}

export function App() {
  const [access, setAccess] = useState<Access>({ state: "connecting" });
  const [route, setRoute] = useState<Route>(parseRoute(location.hash));

  const connect = async (token: string) => {
    setAccess({ state: "connecting" });
    try {
      const connection = await HostConnection.open(token);
      tokenStore.set(token);
      // A close the page asked for (sign-out) has already left this connection: nothing to say then.
      connection.onClose(() =>
        setAccess((current) =>
          current.state === "ready" && current.connection === connection
            ? { state: "signed-out", error: "The connection to the host closed." }
            : current,
        ),
      );
      // Only an operator's token is answered the host's figures: a tenant's has no Host page to land on.
      const operator = await hostStatus(connection, 1).then(
        () => true,
        (refused: unknown) => {
          if (refused instanceof RequestError) return false;
          throw refused;
        },
      );
      setAccess({ state: "ready", connection, operator });
    } catch (error) {
      tokenStore.clear();
      setAccess({ state: "signed-out", error: describe(error) });
    }
  };

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    const saved = tokenStore.get();
    if (saved === null) setAccess({ state: "signed-out", error: null });
    else void connect(saved);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  const signOut = () => {
    tokenStore.clear();
    setAccess({ state: "signed-out", error: null });
    if (access.state === "ready") access.connection.close();
  };

  if (access.state === "signed-out") return <SignIn error={access.error} onSubmit={(token) => void connect(token)} />;
  if (access.state === "connecting") return <p class="connecting">Connecting…</p>;
  const { connection, operator } = access;
  // A tenant's token lands on its sessions: the host's page is the operator's.
  const shown: Route = route.view === "glance" && !operator ? { view: "sessions", state: "any" } : route;
  return (
    <div class="shell">
      <nav>
        <strong>acp-session-host</strong>
        {operator && (
          <a href="#/" id="nav-host" class={shown.view === "glance" ? "current" : ""}>
            Host
          </a>
        )}
        <a href="#/sessions" id="nav-sessions" class={shown.view === "sessions" ? "current" : ""}>
          Sessions
        </a>
        <button type="button" id="sign-out" onClick={signOut}>
          Sign out
        </button>
      </nav>
      {shown.view === "glance" && <Glance connection={connection} />}
      {shown.view === "sessions" && (
        <SessionsList key={shown.state} connection={connection} operator={operator} state={shown.state} />
      )}
      {shown.view === "session" && (
        <SessionLive key={shown.sessionId} connection={connection} sessionId={shown.sessionId} />
      )}
    </div>
  );
}
