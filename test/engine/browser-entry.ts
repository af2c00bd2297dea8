// Bundled for the browser determinism test.
export { playgroundHashes, scriptedHashes } from "./scripted-run.ts";
