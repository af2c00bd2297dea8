import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "./readme.ts";
import { runsHere } from "./system-tools.ts";

/**
 * scripts/system-deps.sh (npm test's pretest, and .ci/run): on a machine with none of the tools, as root
 * on Debian it asks apt-get for exactly the missing packages; elsewhere it names them and the command
 * that installs them, and never fails the run. The tools are hidden by running it with a PATH of an
 * empty directory (plus a recording fake apt-get for the install case), so nothing is installed here.
 */
const SCRIPT = join(REPO, "scripts", "system-deps.sh");
const PACKAGES = "chromium nginx-light redis-server docker-compose";
const root = process.getuid?.() === 0;
const debian = existsSync("/etc/debian_version");
const bin = mkdtempSync(join(tmpdir(), "system-deps-"));
chmodSync(bin, 0o755);
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/** setpriv's absolute path (the script's PATH hides it), or "" without it. */
const SETPRIV = spawnSync("sh", ["-c", "command -v setpriv"], { encoding: "utf8" }).stdout.trim();

function run(pathDir: string, asNobody = false) {
  const args = asNobody ? ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/bash", SCRIPT] : [SCRIPT];
  return spawnSync(asNobody ? SETPRIV : "/bin/bash", args, { env: { PATH: pathDir, HOME: bin }, encoding: "utf8" });
}

describe("scripts/system-deps.sh", () => {
  it.runIf(runsHere(root && debian, "needs root on Debian", "test/docs/system-deps.test.ts: install branch"))(
    "as root on Debian, installs exactly the missing tools with apt-get",
    () => {
      const log = join(bin, "apt-get.log");
      writeFileSync(join(bin, "apt-get"), `#!/bin/bash\necho "$*" >> ${log}\n`, { mode: 0o755 });
      const r = run(bin);
      rmSync(join(bin, "apt-get"));
      console.log(`stderr: ${r.stderr.trim()}\napt-get calls: ${readFileSync(log, "utf8").trim().replace(/\n/g, " | ")}`);
      expect(r.status).toBe(0);
      expect(readFileSync(log, "utf8")).toContain(`install -y -qq --no-install-recommends ${PACKAGES}`);
      expect(r.stderr).toContain("system-deps: installing chromium nginx-light redis-server docker-compose");
    },
  );

  it("elsewhere, names what is missing and how to install it, and exits 0", () => {
    // As root, drop to nobody (setpriv) so the not-root branch runs; otherwise we already are not root.
    const r = run(bin, root && SETPRIV !== "");
    console.log(r.stderr.trim());
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("system-deps: missing chromium nginx redis-server docker-compose (not root");
    expect(r.stderr).toContain(`apt-get install --no-install-recommends ${PACKAGES}`);
  });

  it("with every tool present, says nothing", () => {
    const r = spawnSync("/bin/bash", [SCRIPT], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const present = ["chromium", "nginx", "redis-server", "docker-compose"].every((t) => spawnSync("sh", ["-c", `command -v ${t}`]).status === 0);
    if (present) expect(r.stderr).toBe("");
    else expect(r.stderr).toContain("system-deps: missing");
  });
});
