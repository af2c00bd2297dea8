import { BODY_DEFAULTS } from "../../../shared/engine/index.ts";
import {
  KNOB_KEYS,
  type KnobControl,
  type KnobKey,
  type KnobRange,
  type MaterialKey,
  ROOM_KNOBS,
  type RoomSettings,
  type RoomSettingsPatch,
} from "../../../shared/net/index.ts";
import { getBuiltinScenario } from "../../../shared/scenarios/index.ts";
import type { AdminApi } from "../net/admin-api.ts";
import { seed001Stack } from "../sim/demo.ts";

const TOKEN_KEY = "physics-admin-token";
/** A control changed this recently is not overwritten by a settings report (one poll, plus the change's round trip), ms. */
const CHANGE_SETTLE_MS = 2500;

/** One knob of the panel as the knob table describes it (DOM-free: what the panel builds a control from). */
export interface KnobSpec {
  key: KnobKey;
  /** The table's label with its unit. */
  label: string;
  hint: string;
  control: KnobControl;
  /** Numeric knobs: the control's span, the table's range (what the server accepts). */
  range?: KnobRange;
}

/** The panel's knobs, in the table's order: one per row of the knob table. */
export function knobSpecs(): KnobSpec[] {
  return KNOB_KEYS.map((key) => {
    const knob = ROOM_KNOBS[key];
    const range = "range" in knob ? knob.range : undefined;
    return { key, label: knob.unit ? `${knob.label} (${knob.unit})` : knob.label, hint: knob.hint ?? "", control: knob.control, range };
  });
}

type Control = {
  key: KnobKey;
  read: () => RoomSettingsPatch;
  /** Shows the room's settings; `own` is each material's value when it is not overridden. */
  write: (s: RoomSettings, own: MaterialValues) => void;
  elements: HTMLElement[];
};

/** A material's value on the scene's bodies when no override is set (what ticking the override starts from). */
export type MaterialValues = Record<MaterialKey, number>;

/**
 * The value most of a scenario's dynamic bodies have for each material (all bodies if none is dynamic);
 * the engine's body defaults for a scenario the client does not know (custom JSON, the stack demo's own).
 */
export function ownMaterialValues(scenario: string): MaterialValues {
  const bodies = getBuiltinScenario(scenario)?.bodies ?? [];
  const moving = bodies.filter((b) => b.type === "dynamic");
  const pool = moving.length > 0 ? moving : bodies;
  const commonest = (key: MaterialKey): number => {
    const counts = new Map<number, number>();
    for (const b of pool) {
      const v = b[key] ?? BODY_DEFAULTS[key];
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    let best: number = BODY_DEFAULTS[key];
    let n = 0;
    for (const [v, c] of counts) if (c > n) [best, n] = [v, c];
    return best;
  };
  return { friction: commonest("friction"), restitution: commonest("restitution") };
}

/** A patch of one knob (the key is the table's, the value its control's). */
function patchOf(key: KnobKey, value: unknown): RoomSettingsPatch {
  return { [key]: value } as RoomSettingsPatch;
}

/**
 * The knobs panel: after the admin token is entered (and checked against the server with
 * POST /auth/check, which changes nothing), every knob of the knob table is a control applied live
 * through PATCH /rooms/:id/settings; scenarios load through POST /rooms/:id/scenario. The controls show
 * the room's settings before they are shown at all (from the welcome, then from GET /rooms/:id every
 * second: the app calls `sync`), except for the control being edited; a material override that is off
 * shows the scene's own value, so ticking it changes nothing until the slider moves.
 */
export class KnobsPanel {
  private readonly api: AdminApi;
  private readonly roomId: () => string;
  private readonly say: (message: string) => void;
  private readonly body: HTMLElement;
  private readonly controls: Control[] = [];
  /** When each control was last changed by the user (performance.now() ms). */
  private readonly changedAt = new Map<Control, number>();
  private readonly scenarioSelect: HTMLSelectElement;
  /** The last scenario loaded from this panel (name or JSON), for Reset. */
  private lastScenario: unknown = null;
  currentScenario = "";
  /** The room's settings as last reported (null until the first report). */
  private settings: RoomSettings | null = null;
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

    this.scenarioSelect = el("select") as HTMLSelectElement;
    this.addScenarioRow();
    this.addDemo();
    this.addKnobs();
  }

  /** Scenario picker (the panel's full width), Load and Reset (the last scenario loaded from here, else the room's). */
  private addScenarioRow(): void {
    const load = button("Load", () => this.load(this.scenarioSelect.value));
    const reset = button("Reset", () => this.load(this.lastScenario ?? this.currentScenario));
    const picker = row("scenario", load, reset, this.scenarioSelect);
    picker.classList.add("scenario-picker");
    this.body.append(picker);
  }

  /** The stack demo: the five-box stack at 8 or 1 iterations, warm starting off. */
  private addDemo(): void {
    const demo = el("div", { className: "demo" });
    demo.append(
      el("div", { className: "demo-title" }, "Stack demo · warm starting off"),
      button("Drop stack · 8 iterations", () => this.load(seed001Stack(8))),
      button("Drop stack · 1 iteration", () => this.load(seed001Stack(1))),
      el(
        "p",
        { className: "hint" },
        "At 8 iterations the five boxes stand and the energy dies out; at 1 they slump and collapse. Turn the iterations knob live to watch a standing stack go.",
      ),
    );
    this.body.append(demo);
  }

  /**
   * One control per row of the knob table, in its order (checkboxes of the toggles share one row), each
   * spanning the knob's range from the table: the values the server accepts.
   */
  private addKnobs(): void {
    const toggles = el("div", { className: "toggles" });
    for (const spec of knobSpecs()) {
      const { control, element } = buildControl(spec);
      this.add(control);
      (spec.control.kind === "toggle" ? toggles : this.body).append(element);
    }
    this.body.append(toggles);
  }

  private async unlock(token: string, form: HTMLFormElement): Promise<void> {
    if (token === "") return;
    this.api.token = token;
    try {
      if (!(await this.api.checkToken())) {
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
    this.say("admin token accepted: knobs unlocked");
    this.reveal();
    try {
      const list = await this.api.scenarios();
      this.scenarioSelect.innerHTML = "";
      for (const s of list) this.scenarioSelect.append(el("option", { value: s.name, title: s.description }, `${s.name} (${s.bodies})`));
      if (this.currentScenario) this.scenarioSelect.value = this.currentScenario;
    } catch (err) {
      this.say((err as Error).message);
    }
  }

  /** Shows the controls once unlocked and the room's settings are known, every one at the room's value. */
  private reveal(): void {
    if (!this.unlocked || this.settings === null || !this.body.hidden) return;
    const own = ownMaterialValues(this.currentScenario);
    for (const c of this.controls) c.write(this.settings, own);
    this.body.hidden = false;
  }

  /** The room's settings (its welcome, then every poll of its info) and scenario; shown except in the control that has focus. */
  sync(settings: RoomSettings, scenario: string): void {
    this.settings = settings;
    if (scenario !== "") this.currentScenario = scenario;
    if (!this.unlocked) return;
    if (this.body.hidden) {
      this.reveal();
      return;
    }
    const own = ownMaterialValues(this.currentScenario);
    const focused = document.activeElement;
    const now = performance.now();
    for (const c of this.controls) {
      // Not the control being edited, nor one just changed: the report may predate the change.
      if (c.elements.some((e) => e === focused) || now - (this.changedAt.get(c) ?? Number.NEGATIVE_INFINITY) < CHANGE_SETTLE_MS) continue;
      c.write(settings, own);
    }
  }

  private add(control: Control): void {
    this.controls.push(control);
    for (const e of control.elements) {
      e.addEventListener("change", () => {
        this.changedAt.set(control, performance.now());
        void this.apply(control.read());
      });
    }
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

/** A knob's control: its elements (in one row, or a labelled checkbox for a toggle) and how it reads and shows values. */
function buildControl(spec: KnobSpec): { control: Control; element: HTMLElement } {
  const c = spec.control;
  switch (c.kind) {
    case "slider":
      return sliderControl(spec, c.step);
    case "override":
      return overrideControl(spec, c.step);
    case "vector":
      return vectorControl(spec, c.step);
    case "choice":
      return choiceControl(spec, c.options);
    case "toggle":
      return toggleControl(spec);
  }
}

/** The range input of a numeric knob: the table's span and step. */
function rangeInput(spec: KnobSpec, step: number, type = "range"): HTMLInputElement {
  const r = spec.range!;
  return el("input", { type, min: String(r.min), max: String(r.max), step: String(step), title: spec.hint }) as HTMLInputElement;
}

function knobRow(spec: KnobSpec, ...children: HTMLElement[]): HTMLElement {
  const r = row(spec.label, ...children);
  r.dataset.knob = spec.key;
  return r;
}

/** A number on a slider, its value beside it. */
function sliderControl(spec: KnobSpec, step: number): { control: Control; element: HTMLElement } {
  const input = rangeInput(spec, step);
  const out = el("output");
  input.addEventListener("input", () => (out.textContent = input.value));
  const write = (s: RoomSettings) => {
    input.value = String(s[spec.key]);
    out.textContent = String(s[spec.key]);
  };
  return { control: { key: spec.key, read: () => patchOf(spec.key, Number(input.value)), write, elements: [input] }, element: knobRow(spec, input, out) };
}

/** A material override: a checkbox (off = each body's own value, null) and the value (off: the scene's own, where ticking starts). */
function overrideControl(spec: KnobSpec, step: number): { control: Control; element: HTMLElement } {
  const on = el("input", { type: "checkbox", title: spec.hint }) as HTMLInputElement;
  const input = rangeInput(spec, step);
  const out = el("output");
  input.addEventListener("input", () => (out.textContent = input.value));
  on.addEventListener("change", () => (out.textContent = on.checked ? input.value : "own"));
  const write = (s: RoomSettings, own: MaterialValues) => {
    const value = s[spec.key] as number | null;
    on.checked = value !== null;
    input.value = String(value ?? own[spec.key as MaterialKey]);
    out.textContent = value === null ? "own" : String(value);
  };
  const read = () => patchOf(spec.key, on.checked ? Number(input.value) : null);
  return { control: { key: spec.key, read, write, elements: [on, input] }, element: knobRow(spec, on, input, out) };
}

/** A vector: one number field per component. */
function vectorControl(spec: KnobSpec, step: number): { control: Control; element: HTMLElement } {
  const inputs = [0, 1, 2].map(() => rangeInput(spec, step, "number"));
  const write = (s: RoomSettings) => {
    const v = s[spec.key] as number[];
    for (let i = 0; i < inputs.length; i++) inputs[i].value = String(v[i]);
  };
  const read = () => patchOf(spec.key, inputs.map((input) => Number(input.value)));
  const element = knobRow(spec, ...inputs);
  element.classList.add("vector");
  return { control: { key: spec.key, read, write, elements: inputs }, element };
}

/** One of a fixed set of values. */
function choiceControl(spec: KnobSpec, options: readonly { value: string; label: string }[]): { control: Control; element: HTMLElement } {
  const select = el("select", { title: spec.hint }) as HTMLSelectElement;
  select.append(...options.map((o) => el("option", { value: o.value }, o.label)));
  const write = (s: RoomSettings) => (select.value = String(s[spec.key]));
  return { control: { key: spec.key, read: () => patchOf(spec.key, select.value), write, elements: [select] }, element: knobRow(spec, select) };
}

/** On or off: a labelled checkbox. */
function toggleControl(spec: KnobSpec): { control: Control; element: HTMLElement } {
  const box = el("input", { type: "checkbox" }) as HTMLInputElement;
  const label = el("label", { title: spec.hint });
  label.dataset.knob = spec.key;
  label.append(box, ` ${spec.label}`);
  const write = (s: RoomSettings) => (box.checked = s[spec.key] === true);
  return { control: { key: spec.key, read: () => patchOf(spec.key, box.checked), write, elements: [box] }, element: label };
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

function row(label: string, ...children: HTMLElement[]): HTMLElement {
  const r = el("div", { className: "knob" });
  r.append(el("span", { className: "knob-label" }, label), ...children);
  return r;
}
