/**
 * A bench-only entry: the real hook runtime running the real Stop gate, for
 * measuring the gate before (or apart from) main.ts's wiring. The bench
 * compiles it with `bun build --compile` exactly as build.ts compiles main.ts.
 */
import { bindingFor } from "../../lib/handlers/index.ts";
import { runHook } from "../../lib/hook/run.ts";

await runHook("stop", process.argv.slice(2), bindingFor);
