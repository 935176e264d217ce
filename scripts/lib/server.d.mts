import type { ChildProcess } from "node:child_process";

export const ROOT: string;
export function ensureDevVars(): void;
export function buildWeb(): void;
/** A TCP port nothing listens on now, as the system hands it out. */
export function freePort(): Promise<number>;
export function applyMigrations(stateDir: string, options?: { quiet?: boolean }): void;
export interface RunningServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}
export function runWranglerDev(options: {
  port: number;
  args?: string[];
  cwd?: string;
  stdio?: "inherit" | "pipe";
  timeoutMs?: number;
  ready: (url: string) => Promise<boolean>;
  onSpawn?: (child: ChildProcess) => void;
  /** Piped output goes here too (appended). */
  logFile?: string;
}): Promise<RunningServer>;
export function startServer(options?: {
  port?: number;
  stateDir?: string;
  vars?: Record<string, string>;
  /** Where the documented variables are forwarded from (npm start: process.env). */
  env?: Record<string, string | undefined>;
  stdio?: "inherit" | "pipe";
  timeoutMs?: number;
  /** Piped output goes here too (appended). */
  logFile?: string;
}): Promise<RunningServer>;
