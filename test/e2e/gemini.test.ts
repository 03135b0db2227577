/**
 * End to end with the real gemini client (pinned devDependency, see
 * test/e2e/support/clients.ts for how it runs offline) against the scripted
 * model server, with hooks from `tracegate install --harness gemini`.
 * Needs `npm run build` first (`npm test` does it).
 */
import { harnessSuite } from "./support/harness-suite.ts";

harnessSuite("gemini");
