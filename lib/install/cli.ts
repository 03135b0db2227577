import { fail } from "../cli/print.ts";

export async function installCommand(_argv: string[]): Promise<number> {
  return fail("this command is not built yet", 2);
}
export async function uninstallCommand(_argv: string[]): Promise<number> {
  return fail("this command is not built yet", 2);
}
export async function doctorCommand(_argv: string[]): Promise<number> {
  return fail("this command is not built yet", 2);
}
