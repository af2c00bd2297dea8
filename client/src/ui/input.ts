/**
 * Keyboard and pointer input. Keys are tracked by `code` (layout-independent WASD); typing into a form
 * field never moves the avatar. A pointer press that neither moves more than a few pixels nor lasts
 * long is a click (dragging orbits the camera instead). Keys the room's game binds to its inputs
 * (`bound`) go to `onGameKey` and no longer move the avatar; without `moving` (a game without avatars)
 * WASD, the arrows and Space do nothing (and keep their usual page behaviour).
 */
export interface ClickEvent {
  x: number;
  y: number;
  shift: boolean;
}

const MOVE_KEYS: Record<string, [number, number]> = {
  KeyW: [1, 0],
  ArrowUp: [1, 0],
  KeyS: [-1, 0],
  ArrowDown: [-1, 0],
  KeyD: [0, 1],
  ArrowRight: [0, 1],
  KeyA: [0, -1],
  ArrowLeft: [0, -1],
};
const CLICK_SLOP_PX = 6;
const CLICK_MAX_MS = 500;

export class Input {
  private readonly down = new Set<string>();
  /** Jump presses not yet consumed. */
  private jumps = 0;
  onClick: (e: ClickEvent) => void = () => {};
  onToggleFollow: () => void = () => {};
  /** A key the game binds was pressed (not a repeat). */
  onGameKey: (code: string) => void = () => {};
  /** Whether WASD, the arrows and Space move the avatar (the room's game has one). */
  moving = true;
  /** KeyboardEvent codes the room's game binds to its inputs. */
  bound: ReadonlySet<string> = new Set();
  private press: { x: number; y: number; t: number; id: number } | null = null;

  constructor(canvas: HTMLCanvasElement) {
    window.addEventListener("keydown", (e) => {
      if (isTyping(e.target)) return;
      // A bound key with Ctrl, Alt or Meta stays the browser's (Ctrl+R reloads).
      if (this.bound.has(e.code) && !(e.ctrlKey || e.metaKey || e.altKey)) {
        e.preventDefault();
        if (!e.repeat) this.onGameKey(e.code);
        return;
      }
      if (this.moving && (e.code in MOVE_KEYS || e.code === "Space")) e.preventDefault();
      if (this.moving && e.code === "Space" && !e.repeat) this.jumps++;
      if (e.code === "KeyF" && !e.repeat) this.onToggleFollow();
      this.down.add(e.code);
    });
    window.addEventListener("keyup", (e) => this.down.delete(e.code));
    window.addEventListener("blur", () => this.down.clear());
    canvas.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      this.press = { x: e.clientX, y: e.clientY, t: performance.now(), id: e.pointerId };
    });
    canvas.addEventListener("pointerup", (e) => {
      const p = this.press;
      this.press = null;
      if (!p || p.id !== e.pointerId || e.button !== 0) return;
      if (Math.hypot(e.clientX - p.x, e.clientY - p.y) > CLICK_SLOP_PX || performance.now() - p.t > CLICK_MAX_MS) return;
      this.onClick({ x: e.clientX, y: e.clientY, shift: e.shiftKey });
    });
  }

  /** Desired direction in camera terms: forward (+1 W / -1 S) and right (+1 D / -1 A), each -1..1. */
  axes(out: { forward: number; right: number }): void {
    let f = 0;
    let r = 0;
    for (const code of this.down) {
      const m = MOVE_KEYS[code];
      if (!m || !this.moving || this.bound.has(code)) continue;
      f += m[0];
      r += m[1];
    }
    out.forward = Math.max(-1, Math.min(1, f));
    out.right = Math.max(-1, Math.min(1, r));
  }

  takeJump(): boolean {
    if (this.jumps === 0) return false;
    this.jumps = 0;
    return true;
  }
}

function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable);
}
