// node scripts/mutation-timeouts.mjs stryker.log (a run with --fileLogLevel debug): how much of a run's worker time went to mutants Stryker timed out.
import { readFileSync } from 'node:fs';
const lines = readFileSync(process.argv[2], 'utf8').split('\n');
const t = (l) => {
  const [h, m, s] = l.slice(0, 8).split(':').map(Number);
  return h * 3600 + m * 60 + s;
};
const starts = [];
const expired = [];
for (const l of lines) {
  const m = /Starting timeout timer \(([\d.]+) ms\)/.exec(l);
  if (m) starts.push({ at: t(l), ms: Number(m[1]) });
  else if (l.includes('Timeout expired')) expired.push(t(l));
}
let spent = 0;
for (const e of expired) {
  const s = starts.filter((x) => Math.abs(e - x.at - x.ms / 1000) <= 2).pop();
  spent += s ? s.ms / 1000 : 0;
}
const span = starts.at(-1).at - starts[0].at;
console.log(
  `${starts.length} mutant runs over ${(span / 60).toFixed(1)} min; ${expired.length} timed out, their timers ${(spent / 60).toFixed(1)} worker-min (of ${((2 * span) / 60).toFixed(1)} on two workers), before each restart`,
);
