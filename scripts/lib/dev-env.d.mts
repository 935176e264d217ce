export const DOCUMENTED_ENV: readonly string[];
export function forwardedEnv(env?: Record<string, string | undefined>): Record<string, string>;
export function parseEnvFile(text: string): Record<string, string>;
export function serializeEnvFile(values: Record<string, string>, options?: { expands?: boolean }): string;
export function workerVars(root: string, options?: { env?: Record<string, string | undefined>; overrides?: Record<string, string> }): Record<string, string>;
export function writeSecretFile(file: string, text: string): string;
