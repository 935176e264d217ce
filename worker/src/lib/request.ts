/** The visitor's IP as Cloudflare saw it; X-Forwarded-For is client-controlled and ignored. */
export const clientIp = (req: Request) => req.headers.get("cf-connecting-ip") ?? "unknown";
