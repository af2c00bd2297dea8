import type { RoomSettings, RoomSettingsPatch } from "../../../shared/sim/index.ts";
import type { AdminApi } from "../net/admin-api.ts";
import { seed001Stack } from "../sim/demo.ts";

const TOKEN_KEY = "physics-admin-token";

type Control = {
  key: keyof RoomSettings;
  read: () => RoomSettingsPatch;
  write: (s: RoomSettings) => void;
  elements: HTMLElement[];
};

/**
 * The knobs panel: after the admin token is entered (and checked against the server), every response
 * knob of the room is a control applied live through PATCH /rooms/:id/settings; scenarios load through
 * POST /rooms/:id/scenario. Values are refreshed from GET /rooms/:id (the app calls `sync`), except for
 * the control being edited.
 */
export class KnobsPanel {
  private readonly api: AdminApi;
  private readonly roomId: () => string;
  private readonly say: (message: string) => void;
  private readonly body: HTMLElement;
  private readonly controls: Control[] = [];
  private readonly scenarioSelect: HTMLSelectElement;
  /** The last scenario loaded from this panel (name or JSON), for Reset. */
  private lastScenario: unknown = null;
  currentScenario = "";
  unlocked = false;

  constructor(root: HTMLElement, api: AdminApi, roomId: () => string, say: (message: string) => void) {
    this.api = api;
    this.roomId = roomId;
    this.say = say;
    root.innerHTML = "";
    const title = el("h2", {}, "Knobs");
    const form = el("form", { className: "token" }) as HTMLFormElement;
    const token = el("input", { type: "password", placeholder: "admin token", autocomplete: "off" }) as HTMLInputElement;
    const unlock = el("button", { type: "submit" }, "Unlock");
    form.append(token, unlock);
    this.body = el("div", { className: "knob-body", hidden: true });
    root.append(title, form, this.body);

    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.unlock(token.value.trim(), form);
    });
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) {
      token.value = saved;
      void this.unlock(saved, form);
    }

    // Scenario picker, reset and seed 001's demo.
    this.scenarioSelect = el("select") as HTMLSelectElement;
    const load = button("Load", () => this.load(this.scenarioSelect.value));
    const reset = button("Reset", () => this.load(this.lastScenario ?? this.currentScenario));
    this.body.append(row("scenario", this.scenarioSelect, load, reset));
    const demo = el("div", { className: "demo" });
    demo.append(
      el("div", { className: "demo-title" }, "Seed 001 demo · warm starting off"),
      button("Drop stack · 8 iterations", () => this.load(seed001Stack(8))),
      button("Drop stack · 1 iteration", () => this.load(seed001Stack(1))),
      el(
        "p",
        { className: "hint" },
        "At 8 iterations the five boxes stand and the energy dies out; at 1 they slump and collapse. Turn the iterations knob live to watch a standing stack go.",
      ),
    );
    this.body.append(demo);

    // Knobs.
    this.addNumber("velocityIterations", "velocity iterations", { type: "range", min: "1", max: "32", step: "1" }, (v) => ({ velocityIterations: Math.round(v) }));
    const method = el("select") as HTMLSelectElement;
    method.append(el("option", { value: "soft" }, "soft (sub-stepping)"), el("option", { value: "projection" }, "projection (Baumgarte)"));
    this.add({
      key: "method",
      read: () => ({ method: method.value as "soft" | "projection" }),
      write: (s) => (method.value = s.method),
      elements: [method],
    });
    this.body.append(row("position correction", method));
    this.addNumber("slop", "slop (m)", { type: "number", min: "0", max: "0.1", step: "0.001" }, (v) => ({ slop: v }));
    this.addNumber("percent", "percent", { type: "range", min: "0", max: "1", step: "0.05" }, (v) => ({ percent: v }));
    this.addOverride("restitution", "restitution", "1");
    this.addOverride("friction", "friction", "2");
    const gravity = el("input", { type: "range", min: "-30", max: "0", step: "0.1" }) as HTMLInputElement;
    const gOut = el("output");
    let gravityNow: [number, number, number] = [0, -9.81, 0];
    this.add({
      key: "gravity",
      read: () => ({ gravity: [gravityNow[0], Number(gravity.value), gravityNow[2]] }),
      write: (s) => {
        gravityNow = [...s.gravity];
        gravity.value = String(s.gravity[1]);
        gOut.textContent = s.gravity[1].toFixed(2);
      },
      elements: [gravity],
    });
    gravity.addEventListener("input", () => (gOut.textContent = Number(gravity.value).toFixed(2)));
    this.body.append(row("gravity y (m/s²)", gravity, gOut));
    const toggles = el("div", { className: "toggles" });
    for (const [key, label] of [
      ["ccd", "CCD"],
      ["sleep", "sleep"],
      ["warmStarting", "warm starting"],
    ] as const) {
      const box = el("input", { type: "checkbox" }) as HTMLInputElement;
      this.add({ key, read: () => ({ [key]: box.checked }), write: (s) => (box.checked = s[key]), elements: [box] });
      const lab = el("label");
      lab.append(box, ` ${label}`);
      toggles.append(lab);
    }
    this.body.append(toggles);
  }

  private async unlock(token: string, form: HTMLFormElement): Promise<void> {
    if (token === "") return;
    this.api.token = token;
    try {
      if (!(await this.api.checkToken(this.roomId()))) {
        this.say("admin token refused (401)");
        sessionStorage.removeItem(TOKEN_KEY);
        return;
      }
    } catch (err) {
      this.say((err as Error).message);
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    this.unlocked = true;
    form.hidden = true;
    this.body.hidden = false;
    try {
      const list = await this.api.scenarios();
      this.scenarioSelect.innerHTML = "";
      for (const s of list) this.scenarioSelect.append(el("option", { value: s.name, title: s.description }, `${s.name} (${s.bodies})`));
      if (this.currentScenario) this.scenarioSelect.value = this.currentScenario;
    } catch (err) {
      this.say((err as Error).message);
    }
  }

  /** Shows the room's current settings (skipping the control that has focus). */
  sync(settings: RoomSettings | undefined, scenario: string): void {
    this.currentScenario = scenario;
    if (!settings || !this.unlocked) return;
    const focused = document.activeElement;
    for (const c of this.controls) {
      if (c.elements.some((e) => e === focused)) continue;
      c.write(settings);
    }
  }

  private add(control: Control): void {
    this.controls.push(control);
    for (const e of control.elements) {
      e.addEventListener("change", () => void this.apply(control.read()));
    }
  }

  private addNumber(key: keyof RoomSettings, label: string, attrs: Record<string, string>, patch: (v: number) => RoomSettingsPatch): void {
    const input = el("input", attrs) as HTMLInputElement;
    const out = el("output");
    input.addEventListener("input", () => (out.textContent = input.value));
    this.add({
      key,
      read: () => patch(Number(input.value)),
      write: (s) => {
        input.value = String(s[key]);
        out.textContent = String(s[key]);
      },
      elements: [input],
    });
    this.body.append(row(label, input, out));
  }

  /** A material override: a checkbox (off = each body's own value, null) and the value. */
  private addOverride(key: "restitution" | "friction", label: string, max: string): void {
    const on = el("input", { type: "checkbox", title: "override every body's own value" }) as HTMLInputElement;
    const input = el("input", { type: "range", min: "0", max, step: "0.05" }) as HTMLInputElement;
    const out = el("output");
    input.addEventListener("input", () => (out.textContent = input.value));
    this.add({
      key,
      read: () => ({ [key]: on.checked ? Number(input.value) : null }),
      write: (s) => {
        on.checked = s[key] !== null;
        if (s[key] !== null) input.value = String(s[key]);
        out.textContent = s[key] === null ? "own" : String(s[key]);
      },
      elements: [on, input],
    });
    this.body.append(row(label, on, input, out));
  }

  private async apply(patch: RoomSettingsPatch): Promise<void> {
    try {
      const r = await this.api.updateSettings(this.roomId(), patch);
      this.say(`${Object.keys(patch).join(", ")} applied at tick ${r.appliesAtTick}`);
    } catch (err) {
      this.say((err as Error).message);
    }
  }

  private async load(scenario: unknown): Promise<void> {
    if (scenario === "" || scenario === null) return;
    try {
      const r = await this.api.loadScenario(this.roomId(), scenario);
      this.lastScenario = scenario;
      const name = typeof scenario === "string" ? scenario : (scenario as { name: string }).name;
      this.say(`loaded ${name} at tick ${r.appliesAtTick}`);
    } catch (err) {
      this.say((err as Error).message);
    }
  }
}

function el(tag: string, props: Record<string, unknown> = {}, text?: string): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k in e) (e as unknown as Record<string, unknown>)[k] = v;
    else e.setAttribute(k, String(v));
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(label: string, onClick: () => void): HTMLButtonElement {
  const b = el("button", { type: "button" }, label) as HTMLButtonElement;
  b.addEventListener("click", onClick);
  return b;
}

function row(label: string, ...children: (HTMLElement | string)[]): HTMLElement {
  const r = el("div", { className: "knob" });
  r.append(el("span", { className: "knob-label" }, label), ...children);
  return r;
}
