// The page: sign-in until a token opens a connection, then the host at a glance, the sessions, or one session.
import { useEffect, useState } from "preact/hooks";
import { AcpSocket, RefusedError, RpcError } from "../acp/socket";
import { initialize } from "../acp/host-api";
import { tokenStore } from "../state/token-store";
import { parseRoute, type Route } from "../state/route";
import { SignIn } from "./sign-in";
import { Glance } from "./glance";
import { SessionsList } from "./sessions-list";
import { SessionLive } from "./session-live";

type Connection =
  { state: "signed-out"; error: string | null } | { state: "connecting" } | { state: "ready"; socket: AcpSocket };

function describe(error: unknown): string {
  if (error instanceof RefusedError) return "The host refused this token.";
  if (error instanceof RpcError) return `The host answered: ${error.message}`;
  return String(error);
}

export function App() {
  const [connection, setConnection] = useState<Connection>({ state: "connecting" });
  const [route, setRoute] = useState<Route>(parseRoute(location.hash));

  const connect = async (token: string) => {
    setConnection({ state: "connecting" });
    try {
      const socket = await AcpSocket.open(token);
      await initialize(socket);
      tokenStore.set(token);
      // A close the page asked for (sign-out) has already left this connection: nothing to say then.
      socket.onClose(() =>
        setConnection((current) =>
          current.state === "ready" && current.socket === socket
            ? { state: "signed-out", error: "The connection to the host closed." }
            : current,
        ),
      );
      setConnection({ state: "ready", socket });
    } catch (error) {
      tokenStore.clear();
      setConnection({ state: "signed-out", error: describe(error) });
    }
  };

  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    const saved = tokenStore.get();
    if (saved === null) setConnection({ state: "signed-out", error: null });
    else void connect(saved);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  const signOut = () => {
    tokenStore.clear();
    setConnection({ state: "signed-out", error: null });
    if (connection.state === "ready") connection.socket.close();
  };

  if (connection.state === "signed-out")
    return <SignIn error={connection.error} onSubmit={(token) => void connect(token)} />;
  if (connection.state === "connecting") return <p class="connecting">Connecting…</p>;
  const socket = connection.socket;
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
      {route.view === "glance" && <Glance socket={socket} />}
      {route.view === "sessions" && <SessionsList socket={socket} />}
      {route.view === "session" && <SessionLive key={route.sessionId} socket={socket} sessionId={route.sessionId} />}
    </div>
  );
}
