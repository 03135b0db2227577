/**
 * `::add-mask::VALUE`: a GitHub Actions step telling the runner to hide a
 * value from its logs. Whatever follows is a secret by the step's own word;
 * the runner masks later lines, but a trace of the step's command or output
 * holds the value itself. A `$VAR` or `${{ … }}` is the script's reference, not the value.
 */
import { regexRule } from "../prefix.ts";

/** See the module comment. */
export const ciMaskRule = regexRule("generic-secret", ["::add-mask::"], String.raw`::add-mask::([^\s"'$\\]{4,4096})`, { priority: 2 });
