import type { RoomSettings, RoomSettingsPatch } from "../../../shared/sim/index.ts";

/** The admin API as the browser uses it (same origin; see server/README.md). Reads are open. */
export interface RoomInfo {
  roomId: string;
  scenario: string;
  clients: number;
  maxClients?: number;
  bodies?: number;
  awake?: number;
  tick?: number;
  tickRate?: number;
  patchRateMs?: number;
  tickMsP50?: number;
  tickMsP99?: number;
  /** Not served yet (see client/README.md): the engine's exact kinetic energy, joules. Plotted when present. */
  kineticEnergy?: number;
  settings?: RoomSettings;
}

export interface ScenarioListing {
  name: string;
  description: string;
  bodies: number;
}

export class AdminError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export class AdminApi {
  readonly base: string;
  token = "";

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

  rooms(): Promise<RoomInfo[]> {
    return this.call("GET", "/rooms");
  }

  room(id: string): Promise<RoomInfo> {
    return this.call("GET", `/rooms/${encodeURIComponent(id)}`);
  }

  scenarios(): Promise<ScenarioListing[]> {
    return this.call("GET", "/scenarios");
  }

  updateSettings(id: string, patch: RoomSettingsPatch): Promise<{ appliesAtTick: number; settings: RoomSettings }> {
    return this.call("PATCH", `/rooms/${encodeURIComponent(id)}/settings`, patch);
  }

  loadScenario(id: string, scenario: unknown): Promise<{ appliesAtTick: number }> {
    return this.call("POST", `/rooms/${encodeURIComponent(id)}/scenario`, { scenario });
  }

  /**
   * Checks the token without changing anything: an empty settings patch passes the auth hook (401 for a
   * wrong token) and is then refused by validation (400: at least one property).
   */
  async checkToken(id: string): Promise<boolean> {
    try {
      await this.call("PATCH", `/rooms/${encodeURIComponent(id)}/settings`, {});
      return true;
    } catch (err) {
      if (err instanceof AdminError && err.status === 401) return false;
      if (err instanceof AdminError && err.status === 400) return true;
      throw err;
    }
  }
}
