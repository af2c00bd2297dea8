import type { QueuedChange, RoomInfo, RoomListEntry, RoomSettingsPatch, ScenarioListing, SettingsChange } from "../../../shared/net/index.ts";
import type { GameListing } from "./games.ts";

export class AdminError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The admin API as the browser uses it (same origin; see server/README.md), typed by the API's contract
 * (shared/net/admin.ts): the server validates and serializes with the same schemas. Reads are open.
 */
export class AdminApi {
  readonly base: string;
  token = "";
  /** GET /games, asked once (the server's games are fixed for its life); a failed request is asked again next time. */
  private gameList: Promise<GameListing[]> | null = null;

  constructor(base = "") {
    this.base = base;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (method !== "GET" && this.token !== "") headers.authorization = `Bearer ${this.token}`;
    const res = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not JSON: keep the text
      }
      throw new AdminError(res.status, `${method} ${path}: ${res.status} ${message}`);
    }
    return (text === "" ? undefined : JSON.parse(text)) as T;
  }

  rooms(): Promise<RoomListEntry[]> {
    return this.call("GET", "/rooms");
  }

  room(id: string): Promise<RoomInfo> {
    return this.call("GET", `/rooms/${encodeURIComponent(id)}`);
  }

  scenarios(): Promise<ScenarioListing[]> {
    return this.call("GET", "/scenarios");
  }

  /** The games rooms may play, with their inputs, fields and client presentation (cached). */
  games(): Promise<GameListing[]> {
    if (this.gameList === null) {
      const request = this.call<GameListing[]>("GET", "/games");
      this.gameList = request;
      request.catch(() => {
        if (this.gameList === request) this.gameList = null;
      });
    }
    return this.gameList;
  }

  updateSettings(id: string, patch: RoomSettingsPatch): Promise<SettingsChange> {
    return this.call("PATCH", `/rooms/${encodeURIComponent(id)}/settings`, patch);
  }

  loadScenario(id: string, scenario: unknown): Promise<QueuedChange> {
    return this.call("POST", `/rooms/${encodeURIComponent(id)}/scenario`, { scenario });
  }

  /**
   * Checks the token without changing anything: POST /auth/check answers 204 to the admin token and 401
   * to anything else (the route exists for this; it does nothing).
   */
  async checkToken(): Promise<boolean> {
    try {
      await this.call("POST", "/auth/check");
      return true;
    } catch (err) {
      if (err instanceof AdminError && err.status === 401) return false;
      throw err;
    }
  }
}
