import type { GameListing } from "../net/games.ts";

/** The sandbox's restart input: it keeps its own button (id "restart"). */
const RESTART_INPUT = "restart";

/**
 * Small buttons at the bottom of the window: the camera mode (follow ↔ overview, also the F key), a
 * restart of the room's scenario for everyone in it (in a game with a `restart` input, the sandbox's:
 * the server accepts one every few seconds per room and answers others with a rejection the HUD shows),
 * and one button per other input of the room's game that takes an empty payload (id `input-<name>`,
 * its label as the text, its key in the tooltip).
 */
export class ViewButtons {
  readonly root: HTMLElement;
  readonly mode: HTMLButtonElement;
  readonly restart: HTMLButtonElement;
  /** The game's input buttons, by input name. */
  readonly inputs = new Map<string, HTMLButtonElement>();

  constructor(parent: HTMLElement, onToggle: () => void, onRestart: () => void) {
    this.root = document.createElement("nav");
    this.root.id = "view-buttons";
    Object.assign(this.root.style, {
      position: "fixed",
      bottom: "10px",
      left: "50%",
      transform: "translateX(-50%)",
      display: "flex",
      gap: "6px",
      padding: "5px",
      background: "rgba(12, 16, 20, 0.72)",
      borderRadius: "6px",
    });
    this.mode = button("view-mode", "camera: follow", "F: follow the avatar or show the whole scene", onToggle);
    this.restart = button("restart", "restart scene", "reload the room's scenario for everyone in it", onRestart);
    // Until the room's game is known to have a restart.
    this.restart.hidden = true;
    this.root.append(this.mode, this.restart);
    parent.append(this.root);
  }

  /** The room's game is known: the restart button if it restarts, a button per input that needs no payload. */
  setGame(game: GameListing | null, send: (input: string) => void): void {
    for (const b of this.inputs.values()) b.remove();
    this.inputs.clear();
    const inputs = game?.inputs ?? [];
    this.restart.hidden = !inputs.some((i) => i.name === RESTART_INPUT);
    for (const input of inputs) {
      if (!input.empty || input.name === RESTART_INPUT) continue;
      const keys = (game?.client.keys ?? []).filter((k) => k.input === input.name).map((k) => keyName(k.key));
      const title = keys.length > 0 ? `${input.label} (key ${keys.join(", ")})` : input.label;
      const b = button(`input-${input.name}`, input.label, title, () => send(input.name));
      b.dataset.input = input.name;
      this.inputs.set(input.name, b);
      this.root.append(b);
    }
  }

  /** Shows the current camera mode on its button. */
  showMode(follow: boolean): void {
    const text = follow ? "camera: follow" : "camera: overview";
    if (this.mode.textContent !== text) this.mode.textContent = text;
  }
}

function button(id: string, text: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement("button");
  b.id = id;
  b.type = "button";
  b.textContent = text;
  b.title = title;
  Object.assign(b.style, {
    font: "inherit",
    color: "#e8eef2",
    background: "#2c3a44",
    border: "1px solid #4a5c68",
    borderRadius: "4px",
    padding: "4px 10px",
    cursor: "pointer",
  });
  b.addEventListener("click", (e) => {
    onClick();
    // Keys go back to the canvas' handlers (a focused button would take Space as a click).
    (e.currentTarget as HTMLButtonElement).blur();
  });
  return b;
}

/** A KeyboardEvent code as a player reads it: "KeyE" → "E", "Digit1" → "1", "Numpad1" → "Num 1", others as they are. */
export function keyName(code: string): string {
  if (/^Key[A-Z]$/.test(code)) return code.slice(3);
  if (/^Digit[0-9]$/.test(code)) return code.slice(5);
  if (/^Numpad[0-9]$/.test(code)) return `Num ${code.slice(6)}`;
  return code;
}
