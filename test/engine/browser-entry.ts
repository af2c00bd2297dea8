// Bundled for the browser determinism test.
export { jointHashes, playgroundHashes, scriptedHashes } from "./scripted-run.ts";
