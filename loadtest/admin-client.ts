import type { RoomListEntry } from "../shared/net/index.ts";
import { parsePrometheus, type Scrape } from "./prom.ts";

/**
 * The server's admin API as the load generator uses it (bearer token; 30 s timeout per call), typed by
 * the API's contract (shared/net/admin.ts).
 */
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

  /** The server's Prometheus text (GET /metrics), as a stage result is computed from it. */
  async metricsText(): Promise<string> {
    const res = await this.call("GET", "/metrics");
    if (!res.ok) throw new Error(`GET /metrics → ${res.status}`);
    return res.text();
  }

  async scrape(): Promise<Scrape> {
    return parsePrometheus(await this.metricsText());
  }

  async rooms(): Promise<RoomListEntry[]> {
    const res = await this.call("GET", "/rooms");
    if (!res.ok) throw new Error(`GET /rooms → ${res.status}`);
    return (await res.json()) as RoomListEntry[];
  }
}
