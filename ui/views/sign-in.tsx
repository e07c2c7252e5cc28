import { useState } from "preact/hooks";

export function SignIn(props: { error: string | null; onSubmit(token: string): void }) {
  const [token, setToken] = useState("");
  return (
    <form
      class="sign-in"
      onSubmit={(event) => {
        event.preventDefault();
        if (token.trim() !== "") props.onSubmit(token.trim());
      }}
    >
      <h1>acp-session-host</h1>
      <label>
        Token
        <input
          id="token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
      </label>
      <button type="submit" id="sign-in">
        Sign in
      </button>
      {props.error !== null && (
        <p class="error" id="sign-in-error" role="alert">
          {props.error}
        </p>
      )}
      <p class="hint">The token stays in this tab (sessionStorage) and goes to the host only.</p>
    </form>
  );
}
