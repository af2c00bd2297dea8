// Bundled for the browser determinism test.
export { scriptedHashes } from "./scripted-run.ts";
