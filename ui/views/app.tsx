// The page: sign-in until a token opens a connection, then the host at a glance, the sessions, or one session.
import { useEffect, useState } from "preact/hooks";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { HostConnection, RefusedError } from "../acp/host-connection";
import { tokenStore } from "../state/token-store";
import { parseRoute, type Route } from "../state/route";
import { SignIn } from "./sign-in";
import { Glance } from "./glance";
import { SessionsList } from "./sessions-list";
import { SessionLive } from "./session-live";

type Access =
  | { state: "signed-out"; error: string | null }
  | { state: "connecting" }
  | { state: "ready"; connection: HostConnection };

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
      setAccess({ state: "ready", connection });
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
  const connection = access.connection;
  return (
    <div class="shell">
      <nav>
        <strong>acp-session-host</strong>
        <a href="#/" class={route.view === "glance" ? "current" : ""}>
          Host
        </a>
        <a href="#/sessions" class={route.view === "sessions" ? "current" : ""}>
          Sessions
        </a>
        <button type="button" id="sign-out" onClick={signOut}>
          Sign out
        </button>
      </nav>
      {route.view === "glance" && <Glance connection={connection} />}
      {route.view === "sessions" && <SessionsList connection={connection} />}
      {route.view === "session" && (
        <SessionLive key={route.sessionId} connection={connection} sessionId={route.sessionId} />
      )}
    </div>
  );
}
