import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KERNEL_MODULE } from "../../scripts/build-kernel.ts";
import { runReadmeCommand } from "../docs/shell.ts";

describe("the contact solver's WebAssembly kernel", () => {
  it("the committed module is what `npm run build:kernel` compiles from the source", async () => {
    const committed = readFileSync(KERNEL_MODULE, "utf8");
    const run = await runReadmeCommand("npm run build:kernel");
    const rebuilt = readFileSync(KERNEL_MODULE, "utf8");
    // Leave the working tree as it was, whatever the outcome.
    if (rebuilt !== committed) writeFileSync(KERNEL_MODULE, committed);
    expect(run.code, run.stderr).toBe(0);
    expect(rebuilt === committed, "shared/engine/kernel/contact-kernel.wasm.ts is stale: run npm run build:kernel and commit it").toBe(true);
  }, 60_000);
});
