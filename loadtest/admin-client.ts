import { parsePrometheus, type Scrape } from "./prom.ts";

/** The server's admin API as the load generator uses it (bearer token; 30 s timeout per call). */
export class Admin {
  readonly url: string;
  readonly token: string;

  constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
  }

  async call(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(this.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  }

  async scrape(): Promise<Scrape> {
    const res = await this.call("GET", "/metrics");
    if (!res.ok) throw new Error(`GET /metrics → ${res.status}`);
    return parsePrometheus(await res.text());
  }

  async rooms(): Promise<RoomInfoLite[]> {
    const res = await this.call("GET", "/rooms");
    if (!res.ok) throw new Error(`GET /rooms → ${res.status}`);
    return (await res.json()) as RoomInfoLite[];
  }
}

export interface RoomInfoLite {
  roomId: string;
  clients?: number;
  bodies?: number;
  tickRate?: number;
  patchRateMs?: number;
  tickMsP99?: number;
}
