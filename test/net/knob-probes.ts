import { KNOB_RANGES, type KnobDef, type KnobKey, type KnobRange, ROOM_KNOBS, type RoomSettings } from "../../shared/net/index.ts";

/**
 * Values to turn each knob of the knob table to, made from the table row alone (its control and range),
 * so the tests that drive every knob need no change when a knob is added.
 */

/** The table row of `key`, as the generic shape every row has. */
export function knobOf(key: KnobKey): KnobDef {
  return ROOM_KNOBS[key] as KnobDef;
}

/** The range the tests probe within: the table's, or a server's narrower one. */
function rangeOf(key: KnobKey, ranges: Readonly<Record<string, KnobRange>>): KnobRange {
  return ranges[key] ?? knobOf(key).range!;
}

/** `fraction` of the way through the range, on the control's step. */
function along(range: KnobRange, fraction: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return Number((Math.round((range.min + (range.max - range.min) * fraction) / step) * step).toFixed(decimals));
}

/** A value for knob `key` that differs from its value in `current`. */
export function probeValue(key: KnobKey, current: RoomSettings, ranges: Readonly<Record<string, KnobRange>> = KNOB_RANGES): unknown {
  const control = knobOf(key).control;
  const now = current[key];
  switch (control.kind) {
    case "toggle":
      return !now;
    case "choice":
      return control.options.find((o) => o.value !== now)!.value;
    case "vector": {
      const r = rangeOf(key, ranges);
      return [0.25, 0.3, 0.35].map((f) => along(r, f, control.step));
    }
    case "slider":
    case "override": {
      const r = rangeOf(key, ranges);
      return [0.25, 0.75].map((f) => along(r, f, control.step)).find((v) => v !== now)!;
    }
  }
}

/** A value just over knob `key`'s range (null for knobs without one). */
export function overRange(key: KnobKey, ranges: Readonly<Record<string, KnobRange>> = KNOB_RANGES): unknown {
  const knob = knobOf(key);
  if (knob.range === undefined) return null;
  const over = rangeOf(key, ranges).max + 1;
  return knob.control.kind === "vector" ? [over, 0, 0] : over;
}
