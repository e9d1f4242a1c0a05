// Shared by the bench scripts: how a run's report joins the results file they were given (BENCH_RESULTS_FILE).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Appends `report` to `file` as the next `## Run N` section, titled `BENCH_RUN_TITLE` or today's date (the file
 * keeps every earlier run); a missing file starts with `header`.
 */
export function appendResults(file, report, header) {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : header;
  const runs = [...previous.matchAll(/^## Run (\d+)/gm)].map((match) => Number(match[1]));
  const next = runs.length === 0 ? 1 : Math.max(...runs) + 1;
  const title = process.env.BENCH_RUN_TITLE ?? new Date().toISOString().slice(0, 10);
  writeFileSync(file, `${previous.replace(/\n*$/, '\n')}\n## Run ${next} — ${title}\n\n${report}`);
}
