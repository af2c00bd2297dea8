/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Game server the SDK connects to under `npm run dev` (default: the page's origin). */
  readonly VITE_GAME_SERVER?: string;
}
