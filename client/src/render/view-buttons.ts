/**
 * Two small buttons at the bottom of the window: the camera mode (follow ↔ overview, also the F key)
 * and a restart of the room's scenario for everyone in it (the server accepts one every few seconds per
 * room and answers others with a rejection the HUD shows).
 */
export class ViewButtons {
  readonly root: HTMLElement;
  readonly mode: HTMLButtonElement;
  readonly restart: HTMLButtonElement;

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
    this.root.append(this.mode, this.restart);
    parent.append(this.root);
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
