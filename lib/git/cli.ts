import { fail } from "../cli/print.ts";

export async function diffCommand(_argv: string[]): Promise<number> {
  return fail("this command is not built yet", 2);
}
