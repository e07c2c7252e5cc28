import "./zod-settings";
import { render } from "preact";
import { App } from "./views/app";

render(<App />, document.getElementById("app")!);
