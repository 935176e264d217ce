import type { Server } from "node:http";
export function serveFetch(handle: (request: Request) => Promise<Response>, port?: number): Promise<{ url: string; server: Server }>;
