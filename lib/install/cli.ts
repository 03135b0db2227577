/**
 * The install family's entry points, as main.ts loads them. Each module does
 * one thing: register.ts edits settings, doctor.ts inspects them.
 */
export { installCommand, uninstallCommand } from "./register.ts";
export { doctorCommand } from "./doctor.ts";
